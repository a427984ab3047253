/* SHA-256 for RMTP (see rmtpdigest.h). */
#include "rmtpdigest.h"

#include <string.h>

#ifdef HAVE_LIBCRYPTO
#include <openssl/evp.h>
#endif

struct _RmtpDigest
{
#ifdef HAVE_LIBCRYPTO
  EVP_MD_CTX *ctx;
#else
  GChecksum *ck;
#endif
  gboolean finished;
  guint8 result[32];
};

RmtpDigest *
rmtp_digest_new (void)
{
  RmtpDigest *d = g_new0 (RmtpDigest, 1);

#ifdef HAVE_LIBCRYPTO
  d->ctx = EVP_MD_CTX_new ();
  if (!d->ctx || !EVP_DigestInit_ex (d->ctx, EVP_sha256 (), NULL))
    g_error ("libcrypto cannot start a SHA-256");
#else
  d->ck = g_checksum_new (G_CHECKSUM_SHA256);
#endif
  return d;
}

void
rmtp_digest_update (RmtpDigest * d, const guint8 * data, gsize len)
{
#ifdef HAVE_LIBCRYPTO
  EVP_DigestUpdate (d->ctx, data, len);
#else
  g_checksum_update (d->ck, data, len);
#endif
}

/* A second call gives the same digest again. */
void
rmtp_digest_finish (RmtpDigest * d, guint8 * out)
{
  gsize len = sizeof d->result;

  if (!d->finished) {
#ifdef HAVE_LIBCRYPTO
    EVP_DigestFinal_ex (d->ctx, d->result, NULL);
#else
    g_checksum_get_digest (d->ck, d->result, &len);
#endif
  }
  d->finished = TRUE;
  memcpy (out, d->result, len);
}

void
rmtp_digest_free (RmtpDigest * d)
{
#ifdef HAVE_LIBCRYPTO
  EVP_MD_CTX_free (d->ctx);
#else
  g_checksum_free (d->ck);
#endif
  g_free (d);
}
