/* libFuzzer target: the nice transport's signalling texts
 * (ext/nice/gstnicesignal.h). Input: [mode:1][text]. Mode even: the text
 * is one ICE blob; odd: a stream of rendezvous lines, each parsed, and the
 * blob of every TO/FROM parsed as a blob. Whatever parses must write back
 * and parse again to the same thing. */
#include <stdint.h>
#include <string.h>

#include "gstnicesignal.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
check_blob (const gchar * text, gsize len)
{
  GstNiceBlob *b = gst_nice_blob_parse (text, len, NULL), *again;
  gchar *w;

  if (!b)
    return;
  g_ptr_array_add (b->candidates, NULL);
  w = gst_nice_blob_write (b->ufrag, b->pwd,
      (const gchar * const *) b->candidates->pdata);
  g_ptr_array_remove_index (b->candidates, b->candidates->len - 1);
  again = gst_nice_blob_parse (w, strlen (w), NULL);
  g_assert (again != NULL);
  g_assert_cmpstr (again->ufrag, ==, b->ufrag);
  g_assert_cmpstr (again->pwd, ==, b->pwd);
  g_assert_cmpuint (again->candidates->len, ==, b->candidates->len);
  gst_nice_blob_free (again);
  gst_nice_blob_free (b);
  g_free (w);
}

static void
check_line (const gchar * line, gsize len)
{
  GstNiceRdvMsg m, again;
  gchar *w;

  if (!gst_nice_rdv_parse (line, len, &m, NULL))
    return;
  w = gst_nice_rdv_write (m.kind, m.id, m.text);
  if (w) {
    g_assert (gst_nice_rdv_parse (w, strlen (w) - 1, &again, NULL));
    g_assert_cmpint (again.kind, ==, m.kind);
    g_assert_cmpstr (again.id, ==, m.id);
    if (m.kind != GST_NICE_RDV_ERROR)
      g_assert_cmpstr (again.text, ==, m.text);
    gst_nice_rdv_msg_clear (&again);
    g_free (w);
  }
  if (m.text && m.kind != GST_NICE_RDV_ERROR)
    check_blob (m.text, strlen (m.text));
  gst_nice_rdv_msg_clear (&m);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const gchar *p, *end;

  if (size < 1)
    return 0;
  p = (const gchar *) data + 1;
  end = (const gchar *) data + size;
  if (data[0] % 2 == 0) {
    check_blob (p, end - p);
    return 0;
  }
  while (p < end) {
    const gchar *nl = memchr (p, '\n', end - p);
    gsize len = (nl ? nl : end) - p;

    check_line (p, len);
    p = nl ? nl + 1 : end;
  }
  return 0;
}
