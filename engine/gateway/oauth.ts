// Discoverable auth for agent clients (MCP 2026-07-28, basic/authorization): OAuth 2.0 Protected
// Resource Metadata (RFC 9728) for /mcp, and the Bearer challenge of every 401 naming it
// (RFC 9728 §5.1) with the error of RFC 6750 §3.1. The resource identifier is
// gateway.oauth.resource; unset, it is derived per request from the URL the client used (Host,
// and X-Forwarded-Proto / X-Forwarded-Host only from gateway.trustedProxies). A derived identifier
// only points clients at the metadata (they check it equals the URL they called, RFC 9728 §3.3);
// it never decides which token audience is accepted.

import type { IncomingHttpHeaders } from 'node:http';
import type { ClientIp } from './client-ip.ts';
import type { GatewaySettings } from './config.ts';
import { header } from './mcp-headers.ts';

export const METADATA_PATH = '/.well-known/oauth-protected-resource';
/** a host[:port] or [ipv6][:port] fit for a URL and a quoted header parameter */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** RFC 6750 §3.1 error codes the gateway answers. */
export type BearerError =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  // RFC 9470 (step-up): the user's sign-in is older than the resource accepts
  | 'insufficient_user_authentication';

export class ProtectedResource {
  /** `scopes_supported`: the configured scopes and every served tool's */
  private scopes: string[];

  constructor(
    private s: GatewaySettings,
    private ip: ClientIp,
    private path: string,
    toolScopes: string[] = [],
  ) {
    this.scopes = [...new Set([...s.oauth.scopes, ...toolScopes])];
  }

  /** The resource identifier of /mcp for this request, or undefined when it cannot be told. */
  resource(headers: IncomingHttpHeaders, remoteAddress: string | undefined): string | undefined {
    if (this.s.oauth.resource) return this.s.oauth.resource;
    let proto = 'http';
    let host = header(headers, 'host');
    if (this.ip.peerIsProxy(remoteAddress)) {
      const p = header(headers, 'x-forwarded-proto')?.split(',')[0].trim().toLowerCase();
      if (p === 'http' || p === 'https') proto = p;
      host = header(headers, 'x-forwarded-host')?.split(',')[0].trim() || host;
    }
    return host && HOST.test(host) ? `${proto}://${host.toLowerCase()}${this.path}` : undefined;
  }

  /** RFC 9728 §3.1: the well-known path goes between the host and the resource's path. */
  metadataUrl(resource: string): string {
    const u = new URL(resource);
    return `${u.origin}${METADATA_PATH}${u.pathname === '/' ? '' : u.pathname}`;
  }

  /** The metadata document (RFC 9728 §2) of a resource identifier. */
  metadata(resource: string): Record<string, unknown> {
    const o = this.s.oauth;
    return {
      resource,
      authorization_servers: o.authorizationServers.length ? o.authorizationServers : [this.s.jwt.issuer],
      // RFC 6750 §2.1 only: never a token in a query string (basic/authorization "Token Requirements")
      bearer_methods_supported: ['header'],
      ...(this.scopes.length ? { scopes_supported: this.scopes } : {}),
      resource_name: this.s.serverName,
    };
  }

  /**
   * The WWW-Authenticate value of a 401: `resource_metadata` always (when the resource is known),
   * `scope` when configured, and `error` only when credentials were sent ("If the request lacks
   * any authentication information ..., the resource server SHOULD NOT include an error code").
   */
  challenge(
    headers: IncomingHttpHeaders,
    remoteAddress: string | undefined,
    error?: BearerError,
    description?: string,
    /** the scopes this request needs (a tool's), instead of the configured ones */
    scopes?: string[],
    /** RFC 9470 `max_age`: seconds since the user's sign-in that the request accepts */
    maxAge?: number,
  ): string {
    const resource = this.resource(headers, remoteAddress);
    const parts: string[] = [];
    if (resource) parts.push(`resource_metadata="${this.metadataUrl(resource)}"`);
    else parts.push('realm="mcp"');
    const scope = scopes?.length ? scopes : this.s.oauth.scopes;
    if (scope.length) parts.push(`scope="${scope.join(' ')}"`);
    if (error) parts.push(`error="${error}"`);
    if (error && description) parts.push(`error_description="${description.replace(/[^\x20-\x7e]|["\\]/g, '')}"`);
    if (maxAge !== undefined) parts.push(`max_age="${maxAge}"`);
    return `Bearer ${parts.join(', ')}`;
  }
}
