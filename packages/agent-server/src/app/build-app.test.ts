import { AGENT_SERVER_ROUTES, bashEventPath, wireSchemas } from '@agent-workspace/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const HEX_ID = '0123456789abcdef0123456789abcdef';

/** Every `/api` route a client can call, with a minimal request. */
const API_ROUTES: [method: string, path: string][] = [
  ['POST', '/api/bash/start_bash_command'],
  ['POST', '/api/bash/execute_bash_command'],
  ['GET', '/api/bash/bash_events/search'],
  ['GET', `/api/bash/bash_events/${HEX_ID}`],
  ['POST', '/api/file/upload?path=/tmp/x'],
  ['GET', '/api/file/download?path=/tmp/x'],
  ['GET', '/api/git/changes?path=.'],
  ['GET', '/api/git/diff?path=x'],
];

const OPEN_ROUTES = ['/alive', '/health', '/ready', '/server_info', '/', '/docs', '/openapi.json'];

describe('buildApp', () => {
  describe('session API keys', () => {
    let t: TestServer;
    const call = (method: string, route: string, key?: string) =>
      fetch(`${t.url}${route}`, {
        method,
        headers: {
          ...(key !== undefined && { 'x-session-api-key': key }),
          ...(method === 'POST' && { 'content-type': 'application/json' }),
        },
        ...(method === 'POST' && { body: '{"command":"true"}' }),
      });

    beforeAll(async () => {
      t = await startTestServer({ sessionApiKeys: ['first-key', 'second-key'] });
    });
    afterAll(() => t.close());

    it('answers 401 on every /api route without a key or with a wrong one', async () => {
      for (const [method, route] of API_ROUTES) {
        for (const key of [undefined, 'wrong-key', 'FIRST-KEY', 'first-key-2', '']) {
          const response = await call(method, route, key);
          expect(response.status, `${method} ${route} with ${key}`).toBe(401);
          expect(await response.json()).toEqual({ detail: 'Unauthorized' });
        }
      }
    });

    it('lets any configured key through', async () => {
      for (const [method, route] of API_ROUTES) {
        for (const key of ['first-key', 'second-key']) {
          const response = await call(method, route, key);
          expect(response.status, `${method} ${route}`).not.toBe(401);
          await response.arrayBuffer();
        }
      }
    });

    it('is not bypassed by percent-encoding the path', async () => {
      for (const route of [
        '/%61pi/file/download?path=/etc/hostname',
        '/api/%66ile/download?path=/x',
      ]) {
        const response = await call('GET', route);
        expect(response.status, route).toBe(401);
        expect(await response.json()).toEqual({ detail: 'Unauthorized' });
      }
    });

    it('keeps health, info and docs open', async () => {
      for (const route of OPEN_ROUTES) {
        const response = await call('GET', route);
        expect(response.status, route).toBe(200);
        await response.arrayBuffer();
      }
    });

    it('answers 404 Not Found for unknown routes', async () => {
      const open = await call('GET', '/no/such/route');
      expect(open.status).toBe(404);
      expect(await open.json()).toEqual({ detail: 'Not Found' });
      const api = await call('GET', '/api/no/such/route', 'first-key');
      expect(api.status).toBe(404);
      expect(await api.json()).toEqual({ detail: 'Not Found' });
    });

    it('requires the key for every route of the authenticated group, whatever its path', async () => {
      // /execute_action is in the group without being under /api.
      const action = await call('POST', '/execute_action');
      expect(action.status).toBe(401);
      expect(await action.json()).toEqual({ detail: 'Unauthorized' });
      // A route matched through the group, also when its path is spelled differently.
      for (const route of ['/api/plugins/browser/x', '/%61pi/plugins/browser/x']) {
        const response = await call('GET', route);
        expect(response.status, route).toBe(401);
        await response.arrayBuffer();
      }
      // An unknown /api path asks for the key first: which routes exist is not told without it.
      const unknown = await call('GET', '/api/no/such/route');
      expect(unknown.status).toBe(401);
      await unknown.arrayBuffer();
    });
  });

  describe('CORS', () => {
    let t: TestServer;
    const dockerHostAddr = process.env.DOCKER_HOST_ADDR;

    const preflight = (origin: string) =>
      fetch(`${t.url}/api/file/download?path=/x`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-session-api-key',
        },
      });

    beforeAll(async () => {
      process.env.DOCKER_HOST_ADDR = '10.1.2.3';
      t = await startTestServer({
        sessionApiKeys: ['key'],
        allowCorsOrigins: ['https://app.example.com'],
      });
    });
    afterEach(() => {
      if (dockerHostAddr === undefined) delete process.env.DOCKER_HOST_ADDR;
      else process.env.DOCKER_HOST_ADDR = dockerHostAddr;
    });
    afterAll(() => t.close());

    it('answers preflights from allowed origins without a key', async () => {
      for (const origin of [
        'http://localhost:5173',
        'http://127.0.0.1:3000',
        'https://localhost',
        'http://10.1.2.3:8080',
        'https://app.example.com',
      ]) {
        const response = await preflight(origin);
        expect(response.status, origin).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe(origin);
        expect(response.headers.get('access-control-allow-credentials')).toBe('true');
        expect(response.headers.get('access-control-allow-headers')).toBe('x-session-api-key');
        expect(response.headers.get('access-control-allow-methods')).toContain('GET');
      }
    });

    it('gives no CORS headers to other origins', async () => {
      for (const origin of ['https://evil.example.com', 'http://localhost.evil.com', 'null']) {
        const response = await preflight(origin);
        expect(response.headers.get('access-control-allow-origin'), origin).toBeNull();
      }
    });

    it('lets the page read a 401', async () => {
      const response = await fetch(`${t.url}/api/git/changes?path=.`, {
        headers: { origin: 'http://localhost:5173' },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    });
  });

  describe('OpenAPI', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer();
    });
    afterAll(() => t.close());

    it('documents the routes with their parameters from the zod schemas', async () => {
      const response = await fetch(`${t.url}/openapi.json`);
      expect(response.status).toBe(200);
      const document = (await response.json()) as {
        paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
        components: { securitySchemes: Record<string, unknown> };
        security: unknown;
      };
      const parameters = (route: string, method: string) =>
        (document.paths[route]?.[method]?.parameters ?? []).map(
          ({ name, in: location }) => `${location}:${name}`,
        );
      expect(parameters('/api/file/upload', 'post')).toEqual(['query:path']);
      expect(parameters('/api/file/download', 'get')).toEqual(['query:path']);
      expect(parameters('/api/git/changes', 'get')).toEqual(['query:path', 'query:ref']);
      expect(parameters('/api/git/diff', 'get')).toEqual([
        'query:path',
        'query:ref',
        'query:commit',
      ]);
      expect(parameters('/api/bash/bash_events/search', 'get')).toEqual(
        expect.arrayContaining(['query:command_id__eq', 'query:order__gt', 'query:limit']),
      );
      expect(parameters('/api/bash/bash_events/{event_id}', 'get')).toEqual(['path:event_id']);
      for (const route of ['/api/bash/start_bash_command', '/api/bash/execute_bash_command']) {
        expect(document.paths[route]?.post, route).toHaveProperty('requestBody');
      }
      expect(document.paths['/api/file/upload']?.post).toMatchObject({
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: { required: ['file'], properties: { file: { format: 'binary' } } },
            },
          },
        },
      });
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining(['/alive', '/health', '/ready', '/server_info']),
      );
      expect(document.components.securitySchemes).toEqual({
        sessionApiKey: { type: 'apiKey', in: 'header', name: 'X-Session-API-Key' },
        initApiKey: { type: 'apiKey', in: 'header', name: 'X-Init-API-Key' },
      });
      expect(document.security).toEqual([{ sessionApiKey: [] }]);
      expect(document.paths['/health']?.get).toMatchObject({ security: [] });
      // Init takes its own key; its state is open.
      expect(document.paths['/api/init']?.post).toMatchObject({ security: [{ initApiKey: [] }] });
      expect(document.paths['/api/init']?.get).toMatchObject({ security: [] });
    });

    it('serves every HTTP route the protocol names, at the path it names', async () => {
      const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      const httpRoutes = Object.values(AGENT_SERVER_ROUTES).filter((route) =>
        route.startsWith('/api/'),
      );
      const openApiPaths = httpRoutes.map((route) => route.replace(/:(\w+)/g, '{$1}'));
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(openApiPaths));
      expect(bashEventPath('ab/c')).toBe('/api/bash/bash_events/ab%2Fc');
    });

    it('documents every wire model of the protocol as a component', async () => {
      const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
        components: { schemas: Record<string, { oneOf?: unknown[]; properties?: unknown }> };
      };
      expect(Object.keys(document.components.schemas)).toEqual(
        expect.arrayContaining(Object.keys(wireSchemas)),
      );
      expect(document.components.schemas.ExecServerFrame?.oneOf).toHaveLength(4);
    });

    it('serves the Swagger UI at /docs', async () => {
      const page = await fetch(`${t.url}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('swagger-ui');
      const script = await fetch(`${t.url}/docs/static/swagger-ui-bundle.js`);
      expect(script.status).toBe(200);
      await script.arrayBuffer();
    });

    it('builds the Swagger UI on the first /docs request, showing the OpenAPI document', async () => {
      // A fresh server: its first docs requests arrive together, before anything built the UI.
      const fresh = await startTestServer();
      try {
        const [spec, page, document] = await Promise.all([
          fetch(`${fresh.url}/docs/json`),
          fetch(`${fresh.url}/docs/`),
          fetch(`${fresh.url}/openapi.json`),
        ]);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('swagger-ui');
        expect(spec.status).toBe(200);
        const shown = (await spec.json()) as { paths: Record<string, unknown> };
        const served = (await document.json()) as { paths: Record<string, unknown> };
        expect(Object.keys(shown.paths).sort()).toEqual(Object.keys(served.paths).sort());
        expect(Object.keys(served.paths)).not.toContain('/docs');
        const missing = await fetch(`${fresh.url}/docs/static/no-such-file.js`);
        expect(missing.status).toBe(404);
        expect(await missing.json()).toEqual({ detail: 'Not Found' });
      } finally {
        await fresh.close();
      }
    });
  });
});
