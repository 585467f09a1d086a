// `engine.store` in an environment file: defaults, lint (a typo, a password in the URL), the
// process environment's URL, and which Redis the gateway's limits use.

import { describe, expect, it } from 'vitest';
import { effectiveStoreSettings } from '../../engine/store/store-for.ts';
import { limiterRedis } from '../../engine/gateway/rate-limit.ts';
import { engineSettingsProblems, loadEngineSettings } from '../helpers/environment-engine.ts';

const load = loadEngineSettings;
const problems = engineSettingsProblems;

describe('engine.store settings', () => {
  it('read with defaults; no store section means memory', () => {
    expect(load('engine:\n  store:\n    redis:\n      url: redis://redis.internal:6379/2\n').store).toEqual({
      inFlightTimeout: 120_000,
      redis: { url: 'redis://redis.internal:6379/2', prefix: 'engine:', commandTimeout: 2000 },
    });
    expect(load('engine:\n  store:\n    redis: { url: "" }\n').store?.redis).toBeUndefined();
    expect(load('keys: {}\n').store).toBeUndefined();
  });

  it('a typo is named with a suggestion; a password in the URL is refused at its line', () => {
    expect(problems('engine:\n  store:\n    redis:\n      prefx: a\n')).toEqual([
      "4:7 unknown key 'prefx' in engine settings; did you mean 'prefix'?",
    ]);
    const [p] = problems('engine:\n  store:\n    redis:\n      url: redis://:s3cret@redis:6379\n');
    expect(p).toMatch(
      /^4:\d+ engine\.store\.redis\.url: a Redis password is a secret; set the whole URL in the process environment as ENGINE_STORE_REDIS_URL/,
    );
    expect(p).not.toContain('s3cret');
  });

  it('ENGINE_STORE_REDIS_URL wins over the file and turns the store on', () => {
    const file = { inFlightTimeout: 1000, redis: { url: 'redis://file:6379', prefix: 'p:', commandTimeout: 50 } };
    expect(effectiveStoreSettings(file, { ENGINE_STORE_REDIS_URL: 'redis://:pw@env:6379' }).redis).toEqual({
      url: 'redis://:pw@env:6379',
      prefix: 'p:',
      commandTimeout: 50,
    });
    expect(effectiveStoreSettings(undefined, {}).redis).toBeUndefined();
    expect(effectiveStoreSettings(undefined, { ENGINE_STORE_REDIS_URL: 'redis://x' }).redis).toMatchObject({
      prefix: 'engine:',
    });
  });

  it("the gateway's own gateway.redis wins; else its limits share the engine store's Redis under <prefix>rl:", () => {
    const store = {
      inFlightTimeout: 1000,
      redis: { url: 'redis://shared:6379', prefix: 'bank:', commandTimeout: 2000 },
    };
    const own = { url: 'redis://gw:6379', prefix: 'gateway:rl:', onError: 'deny' as const };
    expect(limiterRedis(own, store, 'allow', {})).toBe(own);
    expect(limiterRedis(undefined, store, 'deny', {})).toEqual({
      url: 'redis://shared:6379',
      prefix: 'bank:rl:',
      onError: 'deny',
    });
    expect(limiterRedis(undefined, undefined, 'allow', {})).toBeUndefined();
  });
});
