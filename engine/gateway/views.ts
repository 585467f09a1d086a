// What each subscription sees, built once per load: its tools by name, the tools/list pages of
// both eras (2025-11-25 and earlier; 2026-07-28 with resultType and caching hints, the page left
// open for the result's `_meta`) and its quotas (the public one as the limiter's check). A tool
// that needs scopes is listed only to tokens carrying them: those lists are made on first use per
// set of such tools shown, and kept.

import type { GatewaySettings, Subscription } from './config.ts';
import type { LimitCheck } from './rate-limit.ts';
import type { Tool } from './tools.ts';

export interface ToolList {
  /** tools/list result JSON per page (2025-11-25 and earlier) */
  pages: string[];
  /** 2026-07-28 tools/list result JSON per page, without its closing brace */
  modernPages: string[];
}

export interface SubView extends ToolList {
  sub: Subscription;
  tools: Map<string, Tool>;
  /** the pages of a caller with these token scopes (the precomputed ones when no tool needs scopes) */
  listFor(scopes: ReadonlySet<string> | undefined): ToolList;
  /** tools/list result JSON per page (2025-11-25 and earlier) */
  pages: string[];
  /** 2026-07-28 tools/list result JSON per page, without its closing brace */
  modernPages: string[];
  userQuota: number;
  /** the subscription's quota of public tool calls, as the limiter's check (the same object every call) */
  publicCheck: LimitCheck;
  /** the counter key of a user's bearer tool calls under this subscription, without the user id */
  userKeyPrefix: string;
}

export function buildViews(s: GatewaySettings, tools: Tool[]): Map<Subscription, SubView> {
  const views = new Map<Subscription, SubView>();
  // "cacheScope": the list depends on the subscription key, so it is "private" (caching.mdx: a
  // response that varies by authorization context "MUST NOT be shared across authorization contexts")
  const hints = `,"ttlMs":${s.listTtlSeconds * 1000},"cacheScope":"private"`;
  const paged = (listed: Tool[]): ToolList => {
    const pages: string[] = [];
    const modernPages: string[] = [];
    for (let i = 0; i < Math.max(1, listed.length); i += s.pageSize) {
      const slice = listed.slice(i, i + s.pageSize);
      const next =
        i + s.pageSize < listed.length ? Buffer.from(`page:${pages.length + 1}`).toString('base64url') : undefined;
      const cursor = next ? `,"nextCursor":${JSON.stringify(next)}` : '';
      pages.push(`{"tools":${JSON.stringify(slice.map((t) => t.definition))}${cursor}}`);
      modernPages.push(
        `{"resultType":"complete","tools":${JSON.stringify(slice.map((t) => t.modernDefinition))}${cursor}${hints}`,
      );
    }
    return { pages, modernPages };
  };
  for (const sub of s.subscriptions) {
    const allowed = tools.filter((t) => sub.tools.includes('*') || sub.tools.includes(t.name));
    const all = paged(allowed);
    const scoped = allowed.filter((t) => t.scopes.length);
    // by the bit set of the scoped tools shown: at most 2^(scoped tools) lists, each made once
    const byShown = new Map<string, ToolList>();
    const listFor = (scopes: ReadonlySet<string> | undefined): ToolList => {
      if (!scoped.length) return all;
      const shown = scoped.map((t) => (scopes && t.scopes.every((sc) => scopes.has(sc)) ? '1' : '0')).join('');
      let list = byShown.get(shown);
      if (!list) {
        const hidden = new Set(scoped.filter((_, i) => shown[i] === '0'));
        list = paged(allowed.filter((t) => !hidden.has(t)));
        if (byShown.size < 256) byShown.set(shown, list);
      }
      return list;
    };
    views.set(sub, {
      sub,
      ...all,
      listFor,
      tools: new Map(allowed.map((t) => [t.name, t])),
      userQuota: sub.quotaUser ?? s.rateLimits.subscriptionUser,
      publicCheck: { key: `sub:${sub.name}:public`, limit: sub.quotaPublic ?? s.rateLimits.subscriptionPublic },
      userKeyPrefix: `sub:${sub.name}:user:`,
    });
  }
  return views;
}
