/**
 * The local MCP process as an MCP client meets it: the official SDK's Client over its stdio
 * transport, spawning `marketkit mcp` (test/fixtures/cli.ts, nodeCli) against a test server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { nodeCli } from '../fixtures/cli.js';

const root = new URL('../../', import.meta.url);

export interface StdioSession {
  client: Client;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Errors the SDK reported on the stream (a stray non-protocol line on stdout would be one). */
  streamErrors: Error[];
  close(): Promise<void>;
}

export async function connectStdio(env: Record<string, string>, cwd = root.pathname): Promise<StdioSession> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name, value]) => value !== undefined && !name.startsWith('MARKETKIT_'))) as Record<string, string>;
  // Uploads in progress are remembered under XDG_STATE_HOME: a directory of the test's, not the home of whoever runs it.
  const state = mkdtempSync(join(tmpdir(), 'marketkit-mcp-state-'));
  const [command, ...prefix] = nodeCli();
  const transport = new StdioClientTransport({ command: command!, args: [...prefix, 'mcp'], env: { ...inherited, XDG_STATE_HOME: state, ...env }, cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const streamErrors: Error[] = [];
  const client = new Client({ name: 'marketkit-stdio-tests', version: '1.0.0' });
  client.onerror = (error) => streamErrors.push(error);
  await client.connect(transport);
  const close = async () => {
    await client.close();
    rmSync(state, { recursive: true, force: true });
  };
  return { client, stderr: () => stderr, streamErrors, close };
}

/** A tool call's structuredContent, failing loudly when the tool refused. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} refused: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent;
}
