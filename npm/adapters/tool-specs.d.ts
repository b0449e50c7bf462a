// What the framework adapters of lorebase-herald share (adapters/tool-specs.js).

/**
 * The Keeper key the tools send: a key for every call, or a function of the
 * framework's own call context that returns one (`undefined`: the key the
 * `Herald` was configured with). Never shown in a tool's definition.
 */
export type ApiKeyOption<Context> = string | ((context: Context) => string | undefined | Promise<string | undefined>)
