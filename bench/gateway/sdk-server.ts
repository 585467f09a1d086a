// The comparison server: the official MCP SDK's stateless Streamable HTTP server (McpServer +
// StreamableHTTPServerTransport with sessionIdGenerator undefined, a new server and transport per
// request, as the SDK's stateless example does) on node:http, with one tool getExchangeRate that
// runs the same FX route in-process through an embedded engine. No key or token checks (the
// SDK has none built in), so the comparison favours the SDK. Prints its URL.
import { createServer } from 'node:http';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';

const vendor = process.argv[2];
const engine = await startEngine({
  routes: ['routes/hubvendor-foreign-exchange'],
  port: 0,
  logger: createLogger('warn'),
  set: { 'hubvendor-base-url': vendor },
});

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  server.registerTool(
    'getExchangeRate',
    {
      description: 'Exchange rate of one currency pair',
      inputSchema: {
        buyCurrency: z.string().length(3),
        sellCurrency: z.string().length(3),
        transactionAmount: z.string().optional(),
        transactionAmountType: z.enum(['BUY', 'SELL']).optional(),
      },
    },
    async (args) => {
      try {
        const r = await engine.call('get-exchange-rate', { body: args });
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(r.body) }],
          structuredContent: r.body as Record<string, unknown>,
        };
      } catch (e) {
        return { content: [{ type: 'text' as const, text: String((e as Error).message) }], isError: true };
      }
    },
  );
  return server;
}

const http = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/mcp') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
});
http.keepAliveTimeout = 65_000;
http.listen(0, '127.0.0.1', () => {
  const a = http.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => {
  http.close();
  void engine.close().then(() => process.exit(0));
});
