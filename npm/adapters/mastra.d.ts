// lorebase-herald/mastra: Herald's tools for Mastra (`@mastra/core` 1, an
// optional peer dependency).

import type { Tool, ToolExecutionContext } from '@mastra/core/tools'

import type { Herald, ToolResult } from '../index'
import type { ApiKeyOption } from './tool-specs'

/** The options of {@link toMastraTools}. */
export interface MastraToolsOptions {
  /** The Keeper key of every call, or a function of the tool's execution context (`requestContext`, ...) that returns it. */
  apiKey?: ApiKeyOption<ToolExecutionContext>
}

/**
 * Every tool of `herald` as a Mastra tool, keyed by id (its name):
 * `new Agent({ tools: toMastraTools(herald) })`. Each keeps Herald's
 * description, input JSON Schema and MCP annotations (`mcp.annotations`), and
 * resolves with Herald's `ToolResult`; the model reads its text, tool failures
 * as `error-text` (`[code] message ... next: ...`).
 */
export declare function toMastraTools(herald: Herald, options?: MastraToolsOptions): Record<string, Tool<any, ToolResult>>
