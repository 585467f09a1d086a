// Slow (CI runs it once, on the image's Node.js: the suite needs Node.js 22 or later): the official
// MCP conformance suite (test/conformance/, pinned) against the gateway on the sandbox, for
// revisions 2025-11-25 and 2026-07-28, each at its own wire. Every scenario the suite runs for a
// revision is either in PASS, where each of its checks must pass (but for the checks named with
// a reason), or in LEFT_OUT with the reason: the scenarios that need prompts, resources, logging
// or the suite's own test tools, which a tools-only gateway does not have. docs/gateway.md
// (Conformance) lists the same, and says how to run this.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT, skipLoudly } from '../deploy/support.ts';
import {
  keyProxy,
  runSuite,
  SUITE_NODE_MAJOR,
  SUITE_PACKAGE,
  suiteProgram,
  suiteVersion,
  type Check,
  type KeyProxy,
  type SuiteRun,
} from './conformance-suite.ts';
import { KEY, startGateway, type GatewayTestEngine } from './helpers.ts';

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

const tools = (...names: string[]) => `the suite's own test tool${names.length > 1 ? 's' : ''} ${names.join(', ')}`;
const PROMPTS = 'prompts: the gateway serves tools only (prompts/* answer -32601)';
const RESOURCES = 'resources: the gateway serves tools only (resources/* answer -32601)';
const LOGGING = 'the logging utility (logging/setLevel): the gateway declares no logging capability';
const COMPLETION =
  "completion/complete, which completes the arguments of a prompt (the suite's test_prompt_with_arguments)";
const NO_SUBSCRIPTIONS =
  'skipped by the suite: the gateway declares no listChanged and no subscription-delivered capability';

/** scenarios that must pass -> the checks of each that may not, and why */
const PASS: Record<Revision, Record<string, Record<string, string>>> = {
  '2025-11-25': {
    'server-initialize': {},
    ping: {},
    'tools-list': {},
    'dns-rebinding-protection': {},
    // the gateway is stateless: the suite reports the session lifecycle not applicable (INFO)
    'server-session-lifecycle': {},
  },
  '2026-07-28': {
    'server-stateless': {
      'sep-2575-server-rejects-undeclared-capability': tools('test_missing_capability'),
      'sep-2575-missing-capability-http-400': tools('test_missing_capability'),
      'sep-2575-http-server-no-independent-requests-on-stream': tools('test_streaming_elicitation'),
      'sep-2575-server-no-log-without-loglevel': tools('test_logging_tool'),
      'sep-2575-server-sends-subscription-ack': NO_SUBSCRIPTIONS,
      'sep-2575-server-tags-subscription-id': NO_SUBSCRIPTIONS,
      'sep-2575-server-honors-notification-filter': NO_SUBSCRIPTIONS,
      'sep-2575-server-sends-prompts-list-changed-on-subscription': NO_SUBSCRIPTIONS,
      'sep-2575-server-sends-tools-list-changed-on-subscription': NO_SUBSCRIPTIONS,
    },
    'tools-list': {},
    'server-sse-multiple-streams': {},
    'dns-rebinding-protection': {},
    caching: {
      'sep-2549-prompts-list-caching-hints': PROMPTS,
      'sep-2549-resources-list-caching-hints': RESOURCES,
      'sep-2549-resources-templates-list-caching-hints': RESOURCES,
      'sep-2549-resources-read-caching-hints': RESOURCES,
    },
    'input-required-result-unsupported-methods': {},
    'http-header-validation': {},
    'http-custom-header-server-validation': {},
    'tasks-capability-negotiation': {
      'sep-2663-server-rejects-undeclared-client': tools('slow_compute'),
      'tasks-per-request-meta-opt-in': tools('slow_compute'),
    },
    'tasks-dispatch-and-envelope': {
      'tasks-server-directed-creation-no-hint': tools('failing_job'),
      'sep-2663-legacy-task-param-ignored': tools('greet'),
      'tasks-immediate-result-shortcut': tools('slow_compute'),
      'tasks-result-type-complete-on-non-task-responses': tools('greet'),
      'sep-2663-durable-create-strong-consistency': tools('slow_compute'),
    },
    'tasks-request-headers': {
      'tasks-headers-tolerate-mcp-method-on-tools-call': tools('greet'),
      'sep-2663-routing-headers-accepted-on-tasks-get': tools('slow_compute'),
      'sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get': tools('slow_compute'),
    },
  },
};

/** in both revisions' sets */
const LEFT_OUT_BOTH: Record<string, string> = {
  'completion-complete': COMPLETION,
  'tools-call-simple-text': tools('test_simple_text'),
  'tools-call-image': tools('test_image_content'),
  'tools-call-audio': tools('test_audio_content'),
  'tools-call-embedded-resource': tools('test_embedded_resource'),
  'tools-call-mixed-content': tools('test_multiple_content_types'),
  'tools-call-error': tools('test_error_handling'),
  'tools-call-with-progress': tools('test_tool_with_progress'),
  'json-schema-2020-12': tools('json_schema_2020_12_tool'),
  'resources-list': RESOURCES,
  'resources-read-text': RESOURCES,
  'resources-read-binary': RESOURCES,
  'resources-templates-read': RESOURCES,
  'prompts-list': PROMPTS,
  'prompts-get-simple': PROMPTS,
  'prompts-get-with-args': PROMPTS,
  'prompts-get-embedded-resource': PROMPTS,
  'prompts-get-with-image': PROMPTS,
};

/** scenarios not judged (but for their wire-schema check), and why */
const LEFT_OUT: Record<Revision, Record<string, string>> = {
  '2025-11-25': {
    ...LEFT_OUT_BOTH,
    'logging-set-level': LOGGING,
    'tools-call-with-logging': `${LOGGING}; ${tools('test_tool_with_logging')}`,
    'tools-call-sampling': tools('test_sampling'),
    'tools-call-elicitation': tools('test_elicitation'),
    'elicitation-sep1034-defaults': tools('test_elicitation_sep1034_defaults'),
    'elicitation-sep1330-enums': tools('test_elicitation_sep1330_enums'),
    'resources-subscribe': RESOURCES,
    'resources-unsubscribe': RESOURCES,
    'server-sse-polling': `${tools('test_reconnection')}, in a session`,
    'server-sse-multiple-streams':
      'at 2025-11-25 the suite opens the streams in a session only, and the gateway is stateless: it warns and tests nothing',
  },
  '2026-07-28': {
    ...LEFT_OUT_BOTH,
    'sep-2164-resource-not-found': RESOURCES,
    'input-required-result-basic-elicitation': tools('test_input_required_result_elicitation'),
    'input-required-result-basic-sampling': tools('test_input_required_result_sampling'),
    'input-required-result-basic-list-roots': tools('test_input_required_result_list_roots'),
    'input-required-result-request-state': tools('test_input_required_result_request_state'),
    'input-required-result-multiple-input-requests': tools('test_input_required_result_multiple_inputs'),
    'input-required-result-multi-round': tools('test_input_required_result_multi_round'),
    'input-required-result-missing-input-response': tools('test_input_required_result_elicitation'),
    'input-required-result-non-tool-request': `${PROMPTS}; the suite's prompt test_input_required_result_prompt`,
    'input-required-result-result-type': tools('test_input_required_result_elicitation'),
    'input-required-result-tampered-state': tools('test_input_required_result_tampered_state'),
    'input-required-result-capability-check': tools('test_input_required_result_capabilities'),
    'input-required-result-ignore-extra-params': tools('test_input_required_result_elicitation'),
    'input-required-result-validate-input': tools('test_input_required_result_elicitation'),
    'tasks-lifecycle': tools('greet', 'slow_compute', 'failing_job', 'protocol_error_job'),
    'tasks-wire-fields': tools('slow_compute'),
    'tasks-request-state-removal': tools('slow_compute'),
    'tasks-mrtr-input': tools('confirm_delete', 'multi_input'),
    'tasks-required-task-error': tools('failing_job'),
    'tasks-mrtr-composition': tools('test_tool_with_task'),
    'tasks-status-notifications': 'skipped by the suite itself (its harness awaits a rewrite for subscriptions/listen)',
  },
};

/** What stops a scenario of PASS from passing; [] when it passes. */
function problems(checks: Check[], except: Record<string, string>): string[] {
  const out: string[] = [];
  for (const c of checks) {
    const excepted = Object.hasOwn(except, c.id);
    if (excepted && c.status === 'SUCCESS') out.push(`${c.id} passes now: take it off the list (and docs/gateway.md)`);
    if (excepted || c.status === 'SUCCESS' || c.status === 'INFO') continue;
    out.push(`${c.id} ${c.status}${c.errorMessage ? `: ${c.errorMessage}` : ''}`);
  }
  for (const id of Object.keys(except))
    if (!checks.some((c) => c.id === id)) out.push(`${id} is listed, but the suite no longer has it`);
  if (!checks.some((c) => !Object.hasOwn(except, c.id) && (c.status === 'SUCCESS' || c.status === 'INFO')))
    out.push('no check ran');
  return out;
}

const program = suiteProgram();
const nodeMajor = Number(process.versions.node.split('.')[0]);
const cannot = !program
  ? `the suite is not installed (npm ci --prefix ${SUITE_PACKAGE})`
  : nodeMajor < SUITE_NODE_MAJOR
    ? `the suite needs Node.js ${SUITE_NODE_MAJOR} or later, this is ${process.version}`
    : undefined;
if (cannot) skipLoudly('MCP conformance suite', cannot);

// under CI=true it must run: .ci/run installs the package and runs the slow tests on Node.js 24
it.runIf(cannot !== undefined && IN_CI)('the MCP conformance suite runs under CI=true', () => {
  expect.fail(`${cannot}; .ci/run installs the suite, then runs the slow tests on Node.js 24`);
});

describe.skipIf(cannot !== undefined)('slow: the official MCP conformance suite against the gateway', () => {
  let e: GatewayTestEngine | undefined;
  let proxy: KeyProxy | undefined;
  let out: string | undefined;
  const runs = new Map<Revision, SuiteRun>();

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    proxy = await keyProxy({ 'ocp-gateway-subscription-key': KEY });
    e = await startGateway({
      // the suite's requests come from the proxy's origin, which a local operator allows as any other
      // (dns-rebinding-protection: that origin is accepted, evil.example.com refused)
      'gateway.allowedOrigins': proxy.origin,
      'gateway.rateLimits.anonymous': '100000',
      'gateway.rateLimits.subscriptionPublic': '100000',
    });
    proxy.forwardTo(e.url);
    for (const revision of REVISIONS) {
      const dir = join(out, revision);
      mkdirSync(dir);
      runs.set(revision, await runSuite(program!, `${proxy.origin}/mcp`, revision, dir));
    }
  });
  afterAll(async () => {
    await proxy?.close();
    await e?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  for (const revision of REVISIONS) {
    describe(revision, () => {
      it('the suite ran each scenario of the revision, and each is judged here or left out with a reason', () => {
        const run = runs.get(revision)!;
        const ran = [...run.scenarios.keys()].sort();
        expect(ran.length, run.output).toBe(run.announced);
        const planned = [...Object.keys(PASS[revision]), ...Object.keys(LEFT_OUT[revision])].sort();
        expect(ran).toEqual(planned);
        const left = Object.keys(LEFT_OUT[revision]).length;
        console.log(
          `MCP conformance ${suiteVersion()}, ${revision}: ${ran.length - left} scenarios pass, ${left} left out ` +
            `(docs/gateway.md, Conformance)`,
        );
      });

      it.each(Object.keys(PASS[revision]))('%s passes', (scenario) => {
        const checks = runs.get(revision)!.scenarios.get(scenario);
        expect(checks, `${scenario} did not run`).toBeDefined();
        expect(problems(checks!, PASS[revision][scenario]!)).toEqual([]);
      });

      it("every message the gateway sent, in every scenario (those left out too), is valid per the revision's schema", () => {
        const invalid = [...runs.get(revision)!.scenarios].flatMap(([scenario, checks]) =>
          checks
            .filter((c) => c.id === 'wire-schema-valid' && c.status !== 'SUCCESS')
            .map((c) => `${scenario}: ${c.status} ${c.errorMessage ?? ''}`),
        );
        expect(invalid).toEqual([]);
        // the check runs: most scenarios talk through the suite's instrumented client
        const checked = [...runs.get(revision)!.scenarios.values()].filter((c) =>
          c.some((x) => x.id === 'wire-schema-valid'),
        );
        expect(checked.length).toBeGreaterThan(20);
      });
    });
  }
});

it('docs/gateway.md (Conformance) names every scenario and check the conformance test leaves out', () => {
  const doc = readFileSync(join(ROOT, 'docs/gateway.md'), 'utf8');
  const start = doc.indexOf('\n## Conformance');
  expect(start).toBeGreaterThan(0);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const names = REVISIONS.flatMap((r) => [
    ...Object.keys(LEFT_OUT[r]),
    ...Object.values(PASS[r]).flatMap((except) => Object.keys(except)),
  ]);
  expect(names.filter((n) => !section.includes(`\`${n}\``))).toEqual([]);
  // and the version test/conformance/ pins
  const pinned = JSON.parse(readFileSync(join(ROOT, SUITE_PACKAGE, 'package.json'), 'utf8')).dependencies[
    '@modelcontextprotocol/conformance'
  ];
  expect(section).toContain(`@modelcontextprotocol/conformance@${pinned}`);
});
