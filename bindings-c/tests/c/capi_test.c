/*
 * The C API of Lorebase Herald, driven from C against a running sandbox Keeper.
 *
 * Environment:
 *   LOREBASE_TEST_URL  the sandbox's URL (required), e.g. http://127.0.0.1:41234
 *   LOREBASE_TEST_KEY  an API key the sandbox accepts (required: the sandbox runs with --auth api_key)
 *
 * Run by scripts/test-c.sh, under valgrind: every handle and string is freed, so a leak fails the run.
 * Exit status 0 when every check passed.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lorebase_herald.h"

static int failures = 0;
static int checks = 0;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        pthread_mutex_lock(&report_lock);                                  \
        checks++;                                                          \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
        pthread_mutex_unlock(&report_lock);                                \
    } while (0)

static const char *or_null(const char *text) { return text ? text : "(null)"; }

static const char *last_message(void) { return or_null(lorebase_herald_last_error_message()); }

/* Calls a tool that must answer (not a programming error); the caller frees the result. */
static char *call_ok(const LorebaseHerald *herald, const char *tool, const char *arguments) {
    char *result = lorebase_herald_call(herald, tool, arguments);
    CHECK(result != NULL, "%s(%s) failed: code %d, %s", tool, or_null(arguments),
          (int)lorebase_herald_last_error_code(), last_message());
    CHECK(lorebase_herald_last_error_code() == LOREBASE_HERALD_ERROR_CODE_OK, "code after success");
    CHECK(lorebase_herald_last_error_message() == NULL, "message after success: %s", last_message());
    return result;
}

/* Checks that the last call failed with `code`, and that its message contains `needle`. */
static void expect_error(const char *what, const void *result, LorebaseHeraldErrorCode code, const char *needle) {
    CHECK(result == NULL, "%s returned %p instead of NULL", what, result);
    CHECK(lorebase_herald_last_error_code() == code, "%s: code %d, want %d (%s)", what,
          (int)lorebase_herald_last_error_code(), (int)code, last_message());
    const char *message = lorebase_herald_last_error_message();
    CHECK(message != NULL && strstr(message, needle) != NULL, "%s: message %s lacks %s", what,
          or_null(message), needle);
}

static char *settings_json(const char *url, const char *key) {
    static const char format[] = "{\"keeper\": {\"base_url\": \"%s\", \"api_key\": \"%s\", \"max_retries\": 0},"
                                 " \"domain\": \"supply\"}";
    size_t size = sizeof format + strlen(url) + strlen(key);
    char *json = malloc(size);
    if (json) snprintf(json, size, format, url, key);
    return json;
}

static void check_version(void) {
    const char *version = lorebase_herald_version();
    CHECK(version != NULL && strlen(version) > 0, "version");
}

static void check_bad_settings(const char *url) {
    LorebaseHerald *herald = lorebase_herald_new("{\"keeper\": ");
    expect_error("new(truncated JSON)", herald, LOREBASE_HERALD_ERROR_CODE_INVALID_JSON, "settings_json");

    herald = lorebase_herald_new("{\"no_such_key\": 1}");
    expect_error("new(unknown key)", herald, LOREBASE_HERALD_ERROR_CODE_INVALID_SETTINGS, "no_such_key");

    herald = lorebase_herald_new("[1, 2]");
    expect_error("new(array)", herald, LOREBASE_HERALD_ERROR_CODE_INVALID_SETTINGS, "JSON object");

    /* A secret reference that does not resolve names the reference, never a value. */
    char json[512];
    snprintf(json, sizeof json,
             "{\"keeper\": {\"base_url\": \"%s\", \"api_key\": \"secret://env/LOREBASE_TEST_MISSING_VAR\"}}", url);
    herald = lorebase_herald_new(json);
    expect_error("new(missing secret)", herald, LOREBASE_HERALD_ERROR_CODE_INVALID_SETTINGS, "api_key");
}

static const char *const TOOL_NAMES[] = {
    "lorebase_context", "lorebase_schema",  "lorebase_get",     "lorebase_resolve",  "lorebase_query",
    "lorebase_search",  "lorebase_neighborhood", "lorebase_explain", "lorebase_history", "lorebase_lineage",
    "lorebase_changes", "lorebase_diff",    "lorebase_execute", "lorebase_branches",
};

static void check_tools(const LorebaseHerald *herald) {
    char *tools = lorebase_herald_tools(herald);
    CHECK(tools != NULL, "tools: %s", last_message());
    if (!tools) return;
    CHECK(tools[0] == '[', "tools is a JSON array: %.40s", tools);
    for (size_t i = 0; i < sizeof TOOL_NAMES / sizeof TOOL_NAMES[0]; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "\"name\":\"%s\"", TOOL_NAMES[i]);
        CHECK(strstr(tools, needle) != NULL, "tools lists %s", TOOL_NAMES[i]);
    }
    CHECK(strstr(tools, "\"inputSchema\":") != NULL, "tools carry input schemas");
    lorebase_herald_string_free(tools);
}

static void check_get(const LorebaseHerald *herald) {
    char *result = call_ok(herald, "lorebase_get", "{\"ref\": \"Supplier/S-1001\"}");
    if (result) {
        CHECK(strstr(result, "\"is_error\":false") != NULL, "get succeeds: %s", result);
        CHECK(strstr(result, "S-1001") != NULL, "get names the record: %s", result);
    }
    lorebase_herald_string_free(result);

    result = call_ok(herald, "lorebase_get", "{\"ref\": \"Supplier/S-1001\", \"format\": \"json\"}");
    if (result) {
        CHECK(strstr(result, "\"is_error\":false") != NULL, "get json succeeds: %s", result);
        CHECK(strstr(result, "\"structured\":{") != NULL, "json format has structured content: %s", result);
    }
    lorebase_herald_string_free(result);
}

static void check_query(const LorebaseHerald *herald) {
    char *result = call_ok(herald, "lorebase_query", "{\"query\": {\"kind\": \"Supplier\", \"limit\": 3}}");
    if (result) {
        CHECK(strstr(result, "\"is_error\":false") != NULL, "query succeeds: %s", result);
        CHECK(strstr(result, "Supplier/") != NULL, "query returns Supplier rows: %s", result);
    }
    lorebase_herald_string_free(result);
}

/* Tool failures are results with is_error, not API errors. */
static void check_tool_errors(const LorebaseHerald *herald) {
    char *result = call_ok(herald, "lorebase_get", "{\"ref\": \"Supplier/NO-SUCH-SUPPLIER\"}");
    if (result) {
        CHECK(strstr(result, "\"is_error\":true") != NULL, "missing record is a tool error: %s", result);
        CHECK(strstr(result, "[not-found]") != NULL, "not-found code: %s", result);
        CHECK(strstr(result, "next:") != NULL, "next line: %s", result);
        CHECK(strstr(result, "\"structured\":null") != NULL, "no structured content on errors: %s", result);
    }
    lorebase_herald_string_free(result);

    /* A per-call key replaces the configured one: a wrong key is unauthorized. */
    result = lorebase_herald_call_with_key(herald, "lorebase_get", "{\"ref\": \"Supplier/S-1001\"}",
                                           "lbk_not_a_real_key_0000");
    CHECK(result != NULL, "call_with_key: %s", last_message());
    if (result) {
        CHECK(strstr(result, "\"is_error\":true") != NULL, "a wrong key is refused: %s", result);
        CHECK(strstr(result, "[unauthorized]") != NULL, "unauthorized code: %s", result);
        CHECK(strstr(result, "lbk_not_a_real_key_0000") == NULL, "the key is never echoed: %s", result);
    }
    lorebase_herald_string_free(result);
}

/* Programming errors: NULL, the thread's last error set. */
static void check_programming_errors(const LorebaseHerald *herald) {
    char *result = lorebase_herald_call(herald, "lorebase_no_such_tool", "{}");
    expect_error("unknown tool", result, LOREBASE_HERALD_ERROR_CODE_UNKNOWN_TOOL, "lorebase_no_such_tool");

    result = lorebase_herald_call(herald, "lorebase_get", "[\"Supplier/S-1001\"]");
    expect_error("array arguments", result, LOREBASE_HERALD_ERROR_CODE_BAD_ARGUMENTS, "JSON object");

    result = lorebase_herald_call(herald, "lorebase_get", "{\"ref\": ");
    expect_error("truncated arguments", result, LOREBASE_HERALD_ERROR_CODE_INVALID_JSON, "arguments_json");

    result = lorebase_herald_call(NULL, "lorebase_get", "{}");
    expect_error("NULL handle", result, LOREBASE_HERALD_ERROR_CODE_NULL_ARGUMENT, "handle");

    result = lorebase_herald_call(herald, NULL, "{}");
    expect_error("NULL name", result, LOREBASE_HERALD_ERROR_CODE_NULL_ARGUMENT, "name");

    result = lorebase_herald_call(herald, "lorebase_\xff\xfe", "{}");
    expect_error("invalid UTF-8", result, LOREBASE_HERALD_ERROR_CODE_INVALID_UTF8, "name");

    result = lorebase_herald_tools(NULL);
    expect_error("tools(NULL)", result, LOREBASE_HERALD_ERROR_CODE_NULL_ARGUMENT, "handle");

    /* The next success clears the last error. */
    result = call_ok(herald, "lorebase_branches", NULL);
    lorebase_herald_string_free(result);

    /* Freeing NULL is a no-op. */
    lorebase_herald_free(NULL);
    lorebase_herald_string_free(NULL);
}

enum { THREADS = 8, CALLS_PER_THREAD = 4 };

struct worker {
    const LorebaseHerald *herald;
    int index;
};

/* Many threads on one handle at once; each thread's last error is its own. */
static void *worker_main(void *arg) {
    const struct worker *worker = arg;
    for (int i = 0; i < CALLS_PER_THREAD; i++) {
        char *result;
        if ((worker->index + i) % 2 == 0) {
            result = call_ok(worker->herald, "lorebase_get", "{\"ref\": \"Supplier/S-1001\"}");
            CHECK(result && strstr(result, "S-1001"), "thread %d get: %s", worker->index, or_null(result));
        } else {
            result = call_ok(worker->herald, "lorebase_query", "{\"query\": {\"kind\": \"Supplier\", \"limit\": 2}}");
            CHECK(result && strstr(result, "\"is_error\":false"), "thread %d query: %s", worker->index,
                  or_null(result));
        }
        lorebase_herald_string_free(result);
    }
    if (worker->index == 0) {
        char *result = lorebase_herald_call(worker->herald, "lorebase_no_such_tool", NULL);
        expect_error("unknown tool in a thread", result, LOREBASE_HERALD_ERROR_CODE_UNKNOWN_TOOL, "no_such_tool");
    }
    return NULL;
}

static void check_threads(const LorebaseHerald *herald) {
    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    char *before = lorebase_herald_call(herald, "lorebase_no_such_tool", NULL);
    CHECK(before == NULL, "unknown tool before the threads");
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){herald, i};
        CHECK(pthread_create(&threads[i], NULL, worker_main, &workers[i]) == 0, "pthread_create %d", i);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    /* The threads' successes did not clear this thread's error. */
    CHECK(lorebase_herald_last_error_code() == LOREBASE_HERALD_ERROR_CODE_UNKNOWN_TOOL,
          "last error is per thread: %d", (int)lorebase_herald_last_error_code());
}

/* NULL settings: from the environment (LOREBASE_URL, LOREBASE_API_KEY, LOREBASE_DOMAIN). */
static void check_settings_from_environment(const char *url, const char *key) {
    setenv("LOREBASE_URL", url, 1);
    setenv("LOREBASE_API_KEY", key, 1);
    setenv("LOREBASE_DOMAIN", "supply", 1);
    LorebaseHerald *herald = lorebase_herald_new(NULL);
    CHECK(herald != NULL, "new(NULL): %s", last_message());
    if (herald) {
        char *result = call_ok(herald, "lorebase_get", "{\"ref\": \"Supplier/S-1001\"}");
        CHECK(result && strstr(result, "\"is_error\":false"), "get with settings from the environment: %s",
              or_null(result));
        lorebase_herald_string_free(result);
        lorebase_herald_free(herald);
    }
    unsetenv("LOREBASE_URL");
    unsetenv("LOREBASE_API_KEY");
    unsetenv("LOREBASE_DOMAIN");
}

int main(void) {
    const char *url = getenv("LOREBASE_TEST_URL");
    const char *key = getenv("LOREBASE_TEST_KEY");
    if (!url || !key) {
        fprintf(stderr, "set LOREBASE_TEST_URL and LOREBASE_TEST_KEY (scripts/test-c.sh does)\n");
        return 2;
    }

    check_version();
    CHECK(lorebase_herald_last_error_code() == LOREBASE_HERALD_ERROR_CODE_OK, "no error at start");
    check_bad_settings(url);

    char *json = settings_json(url, key);
    LorebaseHerald *herald = json ? lorebase_herald_new(json) : NULL;
    free(json);
    CHECK(herald != NULL, "new: %s", last_message());
    if (herald) {
        check_tools(herald);
        check_get(herald);
        check_query(herald);
        check_tool_errors(herald);
        check_programming_errors(herald);
        check_threads(herald);
        lorebase_herald_free(herald);
    }
    check_settings_from_environment(url, key);

    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
