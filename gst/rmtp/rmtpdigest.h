/* SHA-256 of a data set, computed incrementally. libcrypto's when the
 * build found it (several times faster than GChecksum, which was half of
 * rmtpsrc's CPU for a 2 MiB set), GChecksum otherwise. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _RmtpDigest RmtpDigest;

RmtpDigest *rmtp_digest_new (void);
void rmtp_digest_update (RmtpDigest * d, const guint8 * data, gsize len);
/* Writes the 32-byte digest; @d takes no more data after it, and a
 * second call writes the same digest. */
void rmtp_digest_finish (RmtpDigest * d, guint8 * out);
void rmtp_digest_free (RmtpDigest * d);

G_END_DECLS
