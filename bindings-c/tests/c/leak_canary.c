/*
 * A program that leaks on purpose: scripts/test-c.sh runs it under valgrind with the
 * same options as capi_test.c and expects valgrind to fail it, which shows the leak
 * check of the real test can fail. Needs no Keeper (listing tools makes no call).
 */
#include <stdio.h>

#include "lorebase_herald.h"

int main(void) {
    LorebaseHerald *herald = lorebase_herald_new("{\"keeper\": {\"base_url\": \"http://127.0.0.1:9\"}}");
    if (!herald) {
        fprintf(stderr, "lorebase_herald_new: %s\n", lorebase_herald_last_error_message());
        return 2;
    }
    char *tools = lorebase_herald_tools(herald);
    if (!tools) {
        fprintf(stderr, "lorebase_herald_tools: %s\n", lorebase_herald_last_error_message());
        return 2;
    }
    /* The leak: `tools` is never given to lorebase_herald_string_free. */
    tools = NULL;
    lorebase_herald_free(herald);
    return 0;
}
