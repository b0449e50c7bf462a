// The CommonJS typings of lorebase-herald/langchain (langchain.d.ts), which
// use @langchain/core's CommonJS types: a CommonJS TypeScript app's tools must
// be its own @langchain/core's tools.

import { Herald } from 'lorebase-herald'
import { toLangChainTools } from 'lorebase-herald/langchain'

import type { StructuredToolInterface } from '@langchain/core/tools'

export function uses(): StructuredToolInterface[] {
  const tools = toLangChainTools(new Herald(), { apiKey: (config) => config?.configurable?.keeperKey as string | undefined })
  // @ts-expect-error a typed value is not a number (fails when the typings read as `any`)
  void (tools[0] satisfies number)
  return tools
}
