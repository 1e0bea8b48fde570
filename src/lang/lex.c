/* SPDX-License-Identifier: MIT */
/* The lexer: identifiers (also quoted Modelica names), numbers, strings, operators;
 * // and block comments are skipped. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lang_impl.h"

void lex_init(lexer *lx, const lang_src *src, lang_diag *diag, int file) {
  lx->src = src;
  lx->file_bits = file << LANG_FILE_SHIFT;
  lx->diag = diag;
  lx->p = src->text;
  lx->line = 1;
  lx->col = 1;
}

static int at_end(const lexer *lx) { return lx->p >= lx->src->text + lx->src->len; }

/* The line as the diagnostics take it: capped, with the file's index. */
static int where(const lexer *lx, int line) { return (line < LANG_LINE_MAX ? line : LANG_LINE_MAX) | lx->file_bits; }

static void adv(lexer *lx) {
  if (*lx->p == '\n') {
    lx->line++;
    lx->col = 1;
  } else {
    lx->col++;
  }
  lx->p++;
}

static void skip_space(lexer *lx) {
  for (;;) {
    while (!at_end(lx) && isspace((unsigned char)*lx->p)) adv(lx);
    if (at_end(lx)) return;
    if (lx->p[0] == '/' && lx->p + 1 < lx->src->text + lx->src->len && lx->p[1] == '/') {
      while (!at_end(lx) && *lx->p != '\n') adv(lx);
    } else if (lx->p[0] == '/' && lx->p + 1 < lx->src->text + lx->src->len && lx->p[1] == '*') {
      int line = lx->line, col = lx->col;
      adv(lx), adv(lx);
      while (!at_end(lx) && !(lx->p[0] == '*' && lx->p + 1 < lx->src->text + lx->src->len && lx->p[1] == '/'))
        adv(lx);
      if (at_end(lx)) {
        lang_error(lx->diag, where(lx, line), col, "unterminated comment");
        return;
      }
      adv(lx), adv(lx);
    } else {
      return;
    }
  }
}

token lex_next(lexer *lx) {
  skip_space(lx);
  token t = {T_EOF, lx->p, 0, where(lx, lx->line), lx->col, 0.0};
  if (at_end(lx)) return t;
  const char *s = lx->p;
  unsigned char c = (unsigned char)*s;
  if (isalpha(c) || c == '_') {
    while (!at_end(lx) && (isalnum((unsigned char)*lx->p) || *lx->p == '_')) adv(lx);
    t.kind = T_IDENT;
  } else if (isdigit(c) || (c == '.' && lx->p + 1 < lx->src->text + lx->src->len && isdigit((unsigned char)lx->p[1]))) {
    /* strtod needs a terminated string: the text is NUL-terminated. */
    char *end;
    errno = 0;
    t.num = strtod(s, &end);
    t.kind = T_NUM;
    if (end > lx->src->text + lx->src->len) end = (char *)(lx->src->text + lx->src->len);
    while (lx->p < end) adv(lx);
    if (errno == ERANGE && (t.num > 1.0 || t.num < -1.0)) {
      lang_error(lx->diag, t.line, t.col, "number out of range");
      t.num = 0.0;
    }
  } else if (c == '"' || c == '\'') {
    /* Strings, and quoted identifiers 'like this' (Modelica). */
    char q = (char)c;
    adv(lx);
    /* Modelica strings may span lines; quoted names may not. */
    while (!at_end(lx) && *lx->p != q && (q == '"' || *lx->p != '\n')) {
      if (*lx->p == '\\' && lx->p + 1 < lx->src->text + lx->src->len) adv(lx);
      adv(lx);
    }
    if (at_end(lx) || *lx->p != q) {
      lang_error(lx->diag, t.line, t.col, "unterminated %s", q == '"' ? "string" : "quoted name");
      t.kind = T_BAD;
    } else {
      adv(lx);
      t.kind = q == '"' ? T_STRING : T_IDENT;
    }
  } else {
    adv(lx);
    char n = at_end(lx) ? 0 : *lx->p;
    switch (c) {
    case '(': t.kind = T_LPAREN; break;
    case ')': t.kind = T_RPAREN; break;
    case '[': t.kind = T_LBRACK; break;
    case ']': t.kind = T_RBRACK; break;
    case '{': t.kind = T_LBRACE; break;
    case '}': t.kind = T_RBRACE; break;
    case ',': t.kind = T_COMMA; break;
    case ';': t.kind = T_SEMI; break;
    case '.': t.kind = T_DOT; break;
    case '+': t.kind = T_PLUS; break;
    case '-': t.kind = T_MINUS; break;
    case '*': t.kind = T_STAR; break;
    case '/': t.kind = T_SLASH; break;
    case '^': t.kind = T_CARET; break;
    case '!': t.kind = T_BANG; break;
    case '?': t.kind = T_QUEST; break;
    case ':':
      if (n == '=') adv(lx), t.kind = T_ASSIGN;
      else t.kind = T_COLON;
      break;
    case '=':
      if (n == '=') adv(lx), t.kind = T_EQEQ;
      else t.kind = T_EQ;
      break;
    case '<':
      if (n == '=') adv(lx), t.kind = T_LE;
      else if (n == '>') adv(lx), t.kind = T_NE;
      else t.kind = T_LT;
      break;
    case '>':
      if (n == '=') adv(lx), t.kind = T_GE;
      else t.kind = T_GT;
      break;
    default:
      lang_error(lx->diag, t.line, t.col, "unexpected character '%s%c'",
                 isprint(c) ? "" : "\\x", isprint(c) ? (char)c : '?');
      t.kind = T_BAD;
    }
  }
  t.len = (size_t)(lx->p - s);
  return t;
}

int tok_is(const token *t, const char *word) {
  size_t n = strlen(word);
  return t->kind == T_IDENT && t->len == n && memcmp(t->start, word, n) == 0;
}
