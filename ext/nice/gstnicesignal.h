/* The signalling texts of the nice transport, parsed and written without
 * I/O (GLib only, fuzzed): a peer's ICE blob (credentials and candidates)
 * and the line protocol of the TCP rendezvous. Both come from the network:
 * every limit below is checked and every refusal says what was wrong. */
#ifndef __GST_NICE_SIGNAL_H__
#define __GST_NICE_SIGNAL_H__

#include <glib.h>

G_BEGIN_DECLS

/* Blob: "ice <ufrag> <pwd>\n" then one "a=candidate:..." line per
 * candidate (RFC 8839 syntax). */
#define GST_NICE_BLOB_MAX_SIZE 8192
#define GST_NICE_BLOB_MAX_CANDIDATES 32
#define GST_NICE_BLOB_MAX_LINE 512

typedef struct
{
  gchar *ufrag;
  gchar *pwd;
  GPtrArray *candidates;        /* gchar *, each an a=candidate: line */
} GstNiceBlob;

GstNiceBlob *gst_nice_blob_parse (const gchar * text, gsize size,
    GError ** error);
/* @candidates: NULL-terminated a=candidate: lines */
gchar *gst_nice_blob_write (const gchar * ufrag, const gchar * pwd,
    const gchar * const *candidates);
void gst_nice_blob_free (GstNiceBlob * blob);

/* Rendezvous lines, '\n'-terminated, at most GST_NICE_RDV_MAX_LINE bytes
 * with the newline:
 *   participant -> host: "HELLO <id>", "TO <id> <base64 blob>"
 *   host -> participant: "FROM <id> <base64 blob>", "ERROR <text>"
 * A member id is 1..64 of [A-Za-z0-9._:@-]. */
#define GST_NICE_RDV_MAX_LINE 12288
#define GST_NICE_RDV_MAX_ID 64

typedef enum
{
  GST_NICE_RDV_HELLO,
  GST_NICE_RDV_TO,
  GST_NICE_RDV_FROM,
  GST_NICE_RDV_ERROR,
} GstNiceRdvKind;

typedef struct
{
  GstNiceRdvKind kind;
  gchar *id;                    /* HELLO, TO, FROM */
  gchar *text;                  /* TO, FROM: the decoded blob; ERROR: text */
} GstNiceRdvMsg;

/* One line without its '\n'; FALSE and @error on anything malformed. */
gboolean gst_nice_rdv_parse (const gchar * line, gsize len,
    GstNiceRdvMsg * msg, GError ** error);
/* The line for @kind, '\n'-terminated; NULL if it would be too long or
 * @id is not a member id. */
gchar *gst_nice_rdv_write (GstNiceRdvKind kind, const gchar * id,
    const gchar * text);
void gst_nice_rdv_msg_clear (GstNiceRdvMsg * msg);

gboolean gst_nice_rdv_id_is_valid (const gchar * id, gsize len);

G_END_DECLS

#endif /* __GST_NICE_SIGNAL_H__ */
