/* PTX instruction patterns and modifier-set matching (see pattern.h). */
#include "pattern.h"

#include <stdio.h>
#include <string.h>

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_word_char(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* A modifier: runs of [A-Za-z0-9_] joined by "::". */
static bool modifier_valid(const char *s, size_t len)
{
    if (len == 0 || !is_word_char(s[0]) || !is_word_char(s[len - 1]))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (is_word_char(s[i]))
            continue;
        if (s[i] == ':' && i + 2 < len && s[i + 1] == ':' && is_word_char(s[i + 2])) {
            i++;
            continue;
        }
        return false;
    }
    return true;
}

bool pg_pattern_parse(const char *text, pg_instr_pattern *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof out->text) {
        snprintf(err, n, "pattern is too long (at most %zu characters)", sizeof out->text - 1);
        return false;
    }
    snprintf(out->text, sizeof out->text, "%s", text);
    const char *p = text;
    for (int part = 0;; part++) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0) {
            snprintf(err, n, "empty component in '%s' (expected opcode.modifier.modifier)", text);
            return false;
        }
        if (len >= PG_PATTERN_MAX_PART) {
            snprintf(err, n, "component '%.*s' is too long (at most %d characters)", (int)len, p,
                     PG_PATTERN_MAX_PART - 1);
            return false;
        }
        if (part == 0) {
            bool ok = p[0] >= 'a' && p[0] <= 'z';
            for (size_t i = 0; i < len && ok; i++)
                ok = is_lower_alnum(p[i]);
            if (!ok) {
                snprintf(err, n, "opcode '%.*s' is not a PTX opcode ([a-z][a-z0-9_]*)", (int)len,
                         p);
                return false;
            }
            memcpy(out->opcode, p, len);
        } else {
            if (!modifier_valid(p, len)) {
                snprintf(err, n,
                         "modifier '%.*s' is not a PTX modifier ([A-Za-z0-9_] runs, '::' between "
                         "them)",
                         (int)len, p);
                return false;
            }
            for (int i = 0; i < out->n_mods; i++)
                if (strlen(out->mods[i]) == len && memcmp(out->mods[i], p, len) == 0) {
                    snprintf(err, n, "modifier '%.*s' appears twice", (int)len, p);
                    return false;
                }
            if (out->n_mods == PG_PATTERN_MAX_MODS) {
                snprintf(err, n, "more than %d modifiers", PG_PATTERN_MAX_MODS);
                return false;
            }
            memcpy(out->mods[out->n_mods++], p, len);
        }
        if (!dot)
            return true;
        p = dot + 1;
    }
}

/* True when the mnemonic has the modifier mod (any position after the opcode). */
static bool has_modifier(const char *mnemonic, const char *mod)
{
    size_t mlen = strlen(mod);
    const char *p = strchr(mnemonic, '.');
    while (p) {
        p++;
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == mlen && memcmp(p, mod, len) == 0)
            return true;
        p = dot;
    }
    return false;
}

bool pg_pattern_matches(const pg_instr_pattern *p, const char *mnemonic)
{
    size_t olen = strlen(p->opcode);
    if (strncmp(mnemonic, p->opcode, olen) != 0 || (mnemonic[olen] != '.' && mnemonic[olen]))
        return false;
    for (int i = 0; i < p->n_mods; i++)
        if (!has_modifier(mnemonic, p->mods[i]))
            return false;
    return true;
}

bool pg_pattern_contains(const pg_instr_pattern *general, const pg_instr_pattern *specific)
{
    if (strcmp(general->opcode, specific->opcode) != 0)
        return false;
    for (int i = 0; i < general->n_mods; i++) {
        bool found = false;
        for (int j = 0; j < specific->n_mods && !found; j++)
            found = strcmp(general->mods[i], specific->mods[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}

void pg_mnemonic_opcode(const char *mnemonic, char *out, size_t n)
{
    size_t len = strcspn(mnemonic, ".");
    snprintf(out, n, "%.*s", (int)len, mnemonic);
}
