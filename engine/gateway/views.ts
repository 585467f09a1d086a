// What each subscription sees, built once per load: its tools by name, the tools/list pages of
// both eras (2025-11-25 and earlier; 2026-07-28 with resultType and caching hints, the page left
// open for the result's `_meta`) and its quotas (the public one as the limiter's check).

import type { GatewaySettings, Subscription } from './config.ts';
import type { LimitCheck } from './rate-limit.ts';
import type { Tool } from './tools.ts';

export interface SubView {
  sub: Subscription;
  tools: Map<string, Tool>;
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
  for (const sub of s.subscriptions) {
    const allowed = tools.filter((t) => sub.tools.includes('*') || sub.tools.includes(t.name));
    const pages: string[] = [];
    const modernPages: string[] = [];
    for (let i = 0; i < Math.max(1, allowed.length); i += s.pageSize) {
      const slice = allowed.slice(i, i + s.pageSize);
      const next =
        i + s.pageSize < allowed.length ? Buffer.from(`page:${pages.length + 1}`).toString('base64url') : undefined;
      const cursor = next ? `,"nextCursor":${JSON.stringify(next)}` : '';
      pages.push(`{"tools":${JSON.stringify(slice.map((t) => t.definition))}${cursor}}`);
      modernPages.push(
        `{"resultType":"complete","tools":${JSON.stringify(slice.map((t) => t.modernDefinition))}${cursor}${hints}`,
      );
    }
    views.set(sub, {
      sub,
      pages,
      modernPages,
      tools: new Map(allowed.map((t) => [t.name, t])),
      userQuota: sub.quotaUser ?? s.rateLimits.subscriptionUser,
      publicCheck: { key: `sub:${sub.name}:public`, limit: sub.quotaPublic ?? s.rateLimits.subscriptionPublic },
      userKeyPrefix: `sub:${sub.name}:user:`,
    });
  }
  return views;
}
