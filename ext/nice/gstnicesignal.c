/* The blob and rendezvous texts (see gstnicesignal.h). */
#include <string.h>
#include "gstnicesignal.h"

#define ERR g_quark_from_static_string ("gst-nice-signal-error-quark")
#define UFRAG_MIN 4             /* RFC 8445 15.4 */
#define PWD_MIN 22
#define CRED_MAX 256

static gboolean
is_ice_char (gchar c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '/';
}

static gboolean
is_ice_string (const gchar * s, gsize len, gsize min)
{
  if (len < min || len > CRED_MAX)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!is_ice_char (s[i]))
      return FALSE;
  return TRUE;
}

static gboolean
is_printable (const gchar * s, gsize len)
{
  for (gsize i = 0; i < len; i++)
    if (s[i] < 0x20 || s[i] > 0x7e)
      return FALSE;
  return TRUE;
}

gboolean
gst_nice_rdv_id_is_valid (const gchar * id, gsize len)
{
  if (len == 0 || len > GST_NICE_RDV_MAX_ID)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (id[i]) && !strchr ("._:@-", id[i]))
      return FALSE;
  return TRUE;
}

void
gst_nice_blob_free (GstNiceBlob * blob)
{
  if (!blob)
    return;
  g_free (blob->ufrag);
  g_free (blob->pwd);
  g_ptr_array_unref (blob->candidates);
  g_free (blob);
}

/* "ice <ufrag> <pwd>" */
static gboolean
parse_credentials (GstNiceBlob * blob, const gchar * line, gsize len,
    GError ** error)
{
  const gchar *u, *sp;
  gsize ulen;

  if (len < 4 || memcmp (line, "ice ", 4) != 0) {
    g_set_error (error, ERR, 0, "blob line 1: expected \"ice <ufrag> "
        "<pwd>\"");
    return FALSE;
  }
  u = line + 4;
  sp = memchr (u, ' ', len - 4);
  ulen = sp ? (gsize) (sp - u) : len - 4;
  if (!sp || !is_ice_string (u, ulen, UFRAG_MIN)) {
    g_set_error (error, ERR, 0, "blob line 1: the ufrag must be %d to %d "
        "ICE characters [A-Za-z0-9+/]", UFRAG_MIN, CRED_MAX);
    return FALSE;
  }
  if (!is_ice_string (sp + 1, line + len - sp - 1, PWD_MIN)) {
    g_set_error (error, ERR, 0, "blob line 1: the password must be %d to %d "
        "ICE characters [A-Za-z0-9+/]", PWD_MIN, CRED_MAX);
    return FALSE;
  }
  blob->ufrag = g_strndup (u, ulen);
  blob->pwd = g_strndup (sp + 1, line + len - sp - 1);
  return TRUE;
}

static gboolean
parse_candidate (GstNiceBlob * blob, guint lineno, const gchar * line,
    gsize len, GError ** error)
{
  if (len > GST_NICE_BLOB_MAX_LINE || !is_printable (line, len) ||
      len <= 12 || memcmp (line, "a=candidate:", 12) != 0) {
    g_set_error (error, ERR, 0, "blob line %u: expected an \"a=candidate:\" "
        "line of printable ASCII of at most %d bytes", lineno,
        GST_NICE_BLOB_MAX_LINE);
    return FALSE;
  }
  if (blob->candidates->len >= GST_NICE_BLOB_MAX_CANDIDATES) {
    g_set_error (error, ERR, 0, "blob: more than %d candidates",
        GST_NICE_BLOB_MAX_CANDIDATES);
    return FALSE;
  }
  g_ptr_array_add (blob->candidates, g_strndup (line, len));
  return TRUE;
}

GstNiceBlob *
gst_nice_blob_parse (const gchar * text, gsize size, GError ** error)
{
  GstNiceBlob *blob;
  const gchar *p = text, *end = text + size;
  guint lineno = 0;

  if (size > GST_NICE_BLOB_MAX_SIZE) {
    g_set_error (error, ERR, 0, "blob of %" G_GSIZE_FORMAT " bytes, more "
        "than %d", size, GST_NICE_BLOB_MAX_SIZE);
    return NULL;
  }
  blob = g_new0 (GstNiceBlob, 1);
  blob->candidates = g_ptr_array_new_with_free_func (g_free);
  while (p < end) {
    const gchar *nl = memchr (p, '\n', end - p);
    gsize len = (nl ? nl : end) - p;
    gboolean ok;

    if (len > 0 && p[len - 1] == '\r')
      len--;
    lineno++;
    if (lineno == 1)
      ok = parse_credentials (blob, p, len, error);
    else
      ok = len == 0 || parse_candidate (blob, lineno, p, len, error);
    if (!ok) {
      gst_nice_blob_free (blob);
      return NULL;
    }
    p = nl ? nl + 1 : end;
  }
  if (!blob->ufrag) {
    g_set_error (error, ERR, 0, "empty blob: no \"ice <ufrag> <pwd>\" line");
    gst_nice_blob_free (blob);
    return NULL;
  }
  return blob;
}

gchar *
gst_nice_blob_write (const gchar * ufrag, const gchar * pwd,
    const gchar * const *candidates)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "ice %s %s\n", ufrag, pwd);
  for (guint i = 0; candidates && candidates[i]; i++)
    g_string_append_printf (s, "%s\n", candidates[i]);
  return g_string_free (s, FALSE);
}

void
gst_nice_rdv_msg_clear (GstNiceRdvMsg * msg)
{
  g_clear_pointer (&msg->id, g_free);
  g_clear_pointer (&msg->text, g_free);
}

/* Strict base64: the alphabet, '=' only as padding, a multiple of 4. */
static gboolean
is_base64 (const gchar * s, gsize len)
{
  gsize pad = 0;

  if (len == 0 || len % 4 != 0)
    return FALSE;
  while (pad < 2 && s[len - 1 - pad] == '=')
    pad++;
  for (gsize i = 0; i < len - pad; i++)
    if (!g_ascii_isalnum (s[i]) && s[i] != '+' && s[i] != '/')
      return FALSE;
  return TRUE;
}

/* "<id> <base64>" after the keyword */
static gboolean
parse_addressed (const gchar * rest, gsize len, GstNiceRdvMsg * msg,
    const gchar * kw, GError ** error)
{
  const gchar *sp = memchr (rest, ' ', len);
  gsize idlen = sp ? (gsize) (sp - rest) : len;
  gsize b64len, n;
  guchar *raw;

  if (!sp || !gst_nice_rdv_id_is_valid (rest, idlen)) {
    g_set_error (error, ERR, 0, "%s: expected \"%s <member id> <base64>\" "
        "with an id of 1 to %d of [A-Za-z0-9._:@-]", kw, kw,
        GST_NICE_RDV_MAX_ID);
    return FALSE;
  }
  b64len = rest + len - sp - 1;
  if (!is_base64 (sp + 1, b64len)) {
    g_set_error (error, ERR, 0, "%s: the blob is not base64", kw);
    return FALSE;
  }
  {
    gchar *b64 = g_strndup (sp + 1, b64len);
    raw = g_base64_decode (b64, &n);
    g_free (b64);
  }
  if (n == 0 || memchr (raw, '\0', n)) {
    g_set_error (error, ERR, 0, "%s: the blob is empty or holds a NUL", kw);
    g_free (raw);
    return FALSE;
  }
  msg->id = g_strndup (rest, idlen);
  msg->text = g_realloc (raw, n + 1);
  msg->text[n] = '\0';
  return TRUE;
}

gboolean
gst_nice_rdv_parse (const gchar * line, gsize len, GstNiceRdvMsg * msg,
    GError ** error)
{
  memset (msg, 0, sizeof (*msg));
  if (len >= GST_NICE_RDV_MAX_LINE) {
    g_set_error (error, ERR, 0, "line of %" G_GSIZE_FORMAT " bytes, more "
        "than %d", len, GST_NICE_RDV_MAX_LINE - 1);
    return FALSE;
  }
  if (len > 6 && memcmp (line, "HELLO ", 6) == 0) {
    if (!gst_nice_rdv_id_is_valid (line + 6, len - 6)) {
      g_set_error (error, ERR, 0, "HELLO: the member id must be 1 to %d of "
          "[A-Za-z0-9._:@-]", GST_NICE_RDV_MAX_ID);
      return FALSE;
    }
    msg->kind = GST_NICE_RDV_HELLO;
    msg->id = g_strndup (line + 6, len - 6);
    return TRUE;
  }
  if (len > 3 && memcmp (line, "TO ", 3) == 0) {
    msg->kind = GST_NICE_RDV_TO;
    return parse_addressed (line + 3, len - 3, msg, "TO", error);
  }
  if (len > 5 && memcmp (line, "FROM ", 5) == 0) {
    msg->kind = GST_NICE_RDV_FROM;
    return parse_addressed (line + 5, len - 5, msg, "FROM", error);
  }
  if (len > 6 && memcmp (line, "ERROR ", 6) == 0) {
    if (!is_printable (line + 6, len - 6)) {
      g_set_error (error, ERR, 0, "ERROR: the text is not printable ASCII");
      return FALSE;
    }
    msg->kind = GST_NICE_RDV_ERROR;
    msg->text = g_strndup (line + 6, len - 6);
    return TRUE;
  }
  g_set_error (error, ERR, 0, "unknown line (expected HELLO, TO, FROM or "
      "ERROR)");
  return FALSE;
}

gchar *
gst_nice_rdv_write (GstNiceRdvKind kind, const gchar * id, const gchar * text)
{
  gchar *b64 = NULL, *line;

  if (kind != GST_NICE_RDV_ERROR && !gst_nice_rdv_id_is_valid (id,
          strlen (id)))
    return NULL;
  switch (kind) {
    case GST_NICE_RDV_HELLO:
      line = g_strdup_printf ("HELLO %s\n", id);
      break;
    case GST_NICE_RDV_TO:
    case GST_NICE_RDV_FROM:
      b64 = g_base64_encode ((const guchar *) text, strlen (text));
      line = g_strdup_printf ("%s %s %s\n", kind == GST_NICE_RDV_TO ? "TO" :
          "FROM", id, b64);
      break;
    default:
      line = g_strdup_printf ("ERROR %s\n", text);
      g_strdelimit (line + 6, "\r\n", ' ');
      line[strlen (line) - 1] = '\n';
      break;
  }
  g_free (b64);
  if (strlen (line) > GST_NICE_RDV_MAX_LINE) {
    g_free (line);
    return NULL;
  }
  return line;
}
