/* SPDX-License-Identifier: MIT */
/* The cdevs command: dispatches to its subcommands. It uses the public API only. */
#include <string.h>

#include "cli.h"

static const cli_opt list_blocks_opts[] = {{NULL, NULL, NULL}};

const cli_cmd cli_list_blocks_cmd = {"list-blocks", "",
                                     "The block library, with each block's ports and parameters.",
                                     list_blocks_opts};

int cli_list_blocks(int argc, char **argv) {
  cli_parser p;
  cli_parse_begin(&p, &cli_list_blocks_cmd, argc, argv);
  int rc = cli_parse_next(&p);
  if (rc != CLI_END) return cli_parse_status(rc);
  char **pos;
  if (cli_positional(&p, &pos) > 0) {
    fprintf(stderr, "cdevs list-blocks: unexpected argument '%s'\n", pos[0]);
    return CLI_USAGE;
  }
  cdevs_mo_list_blocks(stdout);
  return CLI_OK;
}

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const cli_cmd *cmd[2];
} commands[] = {
    {"run", cli_run, {&cli_run_cmd, NULL}},
    {"check", cli_check, {&cli_check_cmd, NULL}},
    {"list-blocks", cli_list_blocks, {&cli_list_blocks_cmd, NULL}},
    {"example", cli_example, {&cli_flyback_cmd, &cli_efp_cmd}},
    {"devstone", cli_devstone, {&cli_devstone_cmd, NULL}},
    {"bench", cli_bench, {&cli_bench_cmd, NULL}},
    {"graph", cli_graph, {&cli_graph_cmd, NULL}}, /* src/cli/graph_cmd.c */
};

static int usage(FILE *f) {
  fprintf(f, "usage: cdevs <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    for (int k = 0; k < 2 && commands[i].cmd[k]; k++) {
      const cli_cmd *c = commands[i].cmd[k];
      const char *nl = strchr(c->about, '\n');
      fprintf(f, "  %s%s%s\n      %.*s\n", c->name, c->args[0] ? " " : "", c->args,
              nl ? (int)(nl - c->about) : (int)strlen(c->about), c->about);
    }
  fprintf(f,
          "  --version\n      print the version\n"
          "  help\n      this text\n\n"
          "'cdevs COMMAND --help' gives a command's options; 'man cdevs' has everything.\n\n"
          "exit status: 0 done; 1 the model or the run failed, or its results could not be\n"
          "written; 2 bad command line; 130 interrupted (SIGINT, SIGTERM, SIGHUP), the\n"
          "results kept up to the instant reached.\n");
  return f == stderr ? CLI_USAGE : CLI_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  (void)cdevs_lang_register(&cdevs_proc_library); /* the process blocks, for model files */
  (void)cdevs_lang_register(&cdevs_rt_library);   /* the UDP ports */
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
    printf("cdevs %s\n", cdevs_version());
    return CLI_OK;
  }
  if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return usage(stdout);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "cdevs: unknown command '%s'\n", argv[1]);
  return usage(stderr);
}
