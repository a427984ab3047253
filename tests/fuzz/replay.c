/* Runs a fuzz target over files and directories of inputs (a corpus), so the
 * target is exercised by the ordinary test suite without libFuzzer. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static guint
replay_path (const gchar * path)
{
  GDir *dir;
  const gchar *name;
  gchar *contents;
  gsize len;
  guint n = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
    if (!g_file_get_contents (path, &contents, &len, NULL)) {
      g_printerr ("cannot read %s\n", path);
      return 0;
    }
    LLVMFuzzerTestOneInput ((const uint8_t *) contents, len);
    g_free (contents);
    return 1;
  }
  dir = g_dir_open (path, 0, NULL);
  while (dir && (name = g_dir_read_name (dir))) {
    gchar *child = g_build_filename (path, name, NULL);
    n += replay_path (child);
    g_free (child);
  }
  if (dir)
    g_dir_close (dir);
  return n;
}

int
main (int argc, char **argv)
{
  guint n = 0;

  /* A critical or warning is an API misuse or a bug on the input's path:
   * it fails the replay as it fails a libFuzzer run (G_DEBUG there). */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL |
      G_LOG_LEVEL_WARNING);
  for (int i = 1; i < argc; i++)
    n += replay_path (argv[i]);
  printf ("replayed %u inputs\n", n);
  return n > 0 ? 0 : 1;
}
