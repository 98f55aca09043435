/* gate/tool/cu_deps: the make rule of nvcc -M, the -H include tree, the host compiler's search
 * list, and finding an #include line; texts as nvcc 13.0 and gcc 12 print them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "tool/cu_deps.h"

static void test_depfile_nvcc_rule(void **state)
{
    (void)state;
    const char *text = "k.o : k.cu \\\n"
                       "    /usr/include/stdc-predef.h \\\n"
                       "    inc/a.cuh \\\n"
                       "    inc/../../nvx_secret.txt \\\n"
                       "    lnk/b.cuh\n";
    pg_strlist l;
    assert_int_equal(pg_depfile_parse(text, &l), PG_OK);
    assert_int_equal(l.n, 5);
    assert_string_equal(l.items[0], "k.cu");
    assert_string_equal(l.items[1], "/usr/include/stdc-predef.h");
    assert_string_equal(l.items[3], "inc/../../nvx_secret.txt");
    assert_string_equal(l.items[4], "lnk/b.cuh");
    pg_strlist_free(&l);
    assert_int_equal(l.n, 0);
}

static void test_depfile_escapes(void **state)
{
    (void)state;
    /* "\ " a space, "\#" a '#', "$$" a '$'; a name with ':' inside is a prerequisite; a
     * second (phony) rule's target is not; duplicates once. */
    const char *text = "x.o: my\\ dir/a\\ b.cuh c\\#1.h d$$e.h /x/f:g.h k.cu\r\n"
                       "k.cu:\n"
                       "inc/t.h: c\\#1.h\n";
    pg_strlist l;
    assert_int_equal(pg_depfile_parse(text, &l), PG_OK);
    assert_int_equal(l.n, 5);
    assert_string_equal(l.items[0], "my dir/a b.cuh");
    assert_string_equal(l.items[1], "c#1.h");
    assert_string_equal(l.items[2], "d$e.h");
    assert_string_equal(l.items[3], "/x/f:g.h");
    assert_string_equal(l.items[4], "k.cu");
    pg_strlist_free(&l);
}

static void test_depfile_no_rule(void **state)
{
    (void)state;
    pg_strlist l;
    assert_int_equal(pg_depfile_parse("", &l), PG_ERR_INPUT);
    assert_int_equal(pg_depfile_parse("just words here\n", &l), PG_ERR_INPUT);
    assert_int_equal(l.n, 0);
    assert_int_equal(pg_depfile_parse("k.o:\n", &l), PG_OK);
    assert_int_equal(l.n, 0);
    pg_strlist_free(&l);
}

static void test_include_tree_parent(void **state)
{
    (void)state;
    /* nvcc runs the preprocessor twice (device, host): the tree is printed twice, with the
     * diagnostics in between. */
    const char *tree = ". inc/a.cuh\n"
                       ".. inc/../../nvx_secret.txt\n"
                       "In file included from inc/a.cuh:2,\n"
                       "                 from n.cu:1:\n"
                       "inc/../../nvx_secret.txt:1:16: warning: missing terminating ' character\n"
                       "    1 | SECRET it's here\n"
                       ". lnk/b.cuh\n"
                       ".. lnk/c.cuh\n"
                       "... /abs/d.h\n"
                       "Multiple include guards may be useful for:\n"
                       "lnk/b.cuh\n"
                       ". inc/a.cuh\n";
    char parent[256];
    assert_true(pg_include_tree_parent(tree, "inc/../../nvx_secret.txt", parent, sizeof parent));
    assert_string_equal(parent, "inc/a.cuh");
    assert_true(pg_include_tree_parent(tree, "inc/a.cuh", parent, sizeof parent));
    assert_string_equal(parent, ""); /* the main source */
    assert_true(pg_include_tree_parent(tree, "/abs/d.h", parent, sizeof parent));
    assert_string_equal(parent, "lnk/c.cuh");
    assert_false(pg_include_tree_parent(tree, "other.h", parent, sizeof parent));
    assert_string_equal(parent, "");
    /* Not fooled by a name that is only a prefix. */
    assert_false(pg_include_tree_parent(tree, "lnk/b", parent, sizeof parent));
    /* A cut parent name stays NUL-terminated. */
    char small[4];
    assert_true(pg_include_tree_parent(tree, "/abs/d.h", small, sizeof small));
    assert_string_equal(small, "lnk");
}

static void test_cc_search_dirs(void **state)
{
    (void)state;
    const char *text =
        "Using built-in specs.\n"
        "ignoring nonexistent directory \"/usr/local/include/x86_64-linux-gnu\"\n"
        "#include \"...\" search starts here:\n"
        " /opt/quoted\n"
        "#include <...> search starts here:\n"
        " /usr/include/c++/12\n"
        " /usr/lib/gcc/x86_64-linux-gnu/12/include\n"
        " /usr/local/include\n"
        " /Library/Frameworks (framework directory)\n"
        " /usr/include\n"
        "End of search list.\n"
        " /not/listed\n";
    pg_strlist l;
    assert_int_equal(pg_cc_search_dirs_parse(text, &l), PG_OK);
    assert_int_equal(l.n, 6);
    assert_string_equal(l.items[0], "/opt/quoted");
    assert_string_equal(l.items[1], "/usr/include/c++/12");
    assert_string_equal(l.items[4], "/Library/Frameworks");
    assert_string_equal(l.items[5], "/usr/include");
    pg_strlist_free(&l);
    assert_int_equal(pg_cc_search_dirs_parse("gcc: error: no input\n", &l), PG_ERR_INPUT);
    assert_int_equal(l.n, 0);
}

static void test_include_line_find(void **state)
{
    (void)state;
    const char *text = "// kernel\n"
                       "#include <cuda_bf16.h>\n"
                       "  #  include \"include/tile.cuh\" // tiles\n"
                       "#include_next \"../../x/secret.txt\"\n"
                       "#define F \"atile.cuh\"\n"
                       "#include \"atile.cuh\"\n";
    assert_int_equal(pg_include_line_find(text, "tile.cuh"), 3);
    assert_int_equal(pg_include_line_find(text, "secret.txt"), 4);
    assert_int_equal(pg_include_line_find(text, "cuda_bf16.h"), 2);
    assert_int_equal(pg_include_line_find(text, "atile.cuh"), 6); /* not line 5 */
    assert_int_equal(pg_include_line_find(text, "missing.h"), 0);
    assert_int_equal(pg_include_line_find("", "a.h"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depfile_nvcc_rule),  cmocka_unit_test(test_depfile_escapes),
        cmocka_unit_test(test_depfile_no_rule),    cmocka_unit_test(test_include_tree_parent),
        cmocka_unit_test(test_cc_search_dirs),     cmocka_unit_test(test_include_line_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
