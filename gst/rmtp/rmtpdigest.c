/* SHA-256 for RMTP (see rmtpdigest.h). */
#include "rmtpdigest.h"

#include <string.h>

#ifdef HAVE_LIBCRYPTO
#include <openssl/evp.h>

struct _RmtpDigest
{
  EVP_MD_CTX *ctx;
  gboolean finished;
  guint8 result[32];
};

RmtpDigest *
rmtp_digest_new (void)
{
  RmtpDigest *d = g_new0 (RmtpDigest, 1);

  d->ctx = EVP_MD_CTX_new ();
  if (!d->ctx || !EVP_DigestInit_ex (d->ctx, EVP_sha256 (), NULL))
    g_error ("libcrypto cannot start a SHA-256");
  return d;
}

void
rmtp_digest_update (RmtpDigest * d, const guint8 * data, gsize len)
{
  EVP_DigestUpdate (d->ctx, data, len);
}

static void
digest_final (RmtpDigest * d)
{
  EVP_DigestFinal_ex (d->ctx, d->result, NULL);
}

void
rmtp_digest_free (RmtpDigest * d)
{
  EVP_MD_CTX_free (d->ctx);
  g_free (d);
}

#else

struct _RmtpDigest
{
  GChecksum *ck;
  gboolean finished;
  guint8 result[32];
};

RmtpDigest *
rmtp_digest_new (void)
{
  RmtpDigest *d = g_new0 (RmtpDigest, 1);

  d->ck = g_checksum_new (G_CHECKSUM_SHA256);
  return d;
}

void
rmtp_digest_update (RmtpDigest * d, const guint8 * data, gsize len)
{
  g_checksum_update (d->ck, data, len);
}

static void
digest_final (RmtpDigest * d)
{
  gsize len = sizeof d->result;

  g_checksum_get_digest (d->ck, d->result, &len);
}

void
rmtp_digest_free (RmtpDigest * d)
{
  g_checksum_free (d->ck);
  g_free (d);
}

#endif

/* A second call gives the same digest again. */
void
rmtp_digest_finish (RmtpDigest * d, guint8 * out)
{
  if (!d->finished)
    digest_final (d);
  d->finished = TRUE;
  memcpy (out, d->result, sizeof d->result);
}
