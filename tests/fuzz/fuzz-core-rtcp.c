/* libFuzzer target: the RTCP layer of gst/common/core. Input: one RTCP
 * datagram (compound or reduced-size). The walk must cover the datagram
 * exactly when it says it is valid; every SR/RR, APP and NACK that parses
 * must stay within its packet and write back to the same bytes' meaning. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rtcp.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
check_report (const RtcpPacket * pkt)
{
  RtcpReport rep, back;
  RtcpPacket again;
  guint8 out[8 + RTCP_SR_INFO_SIZE + RTCP_MAX_BLOCKS * RTCP_BLOCK_SIZE];
  gsize n;

  if (!rtcp_report_parse (pkt, &rep))
    return;
  n = rtcp_report_write (&rep, out, sizeof out);
  if (n == 0 || !rtcp_header_parse (out, n, &again) ||
      !rtcp_report_parse (&again, &back) ||
      memcmp (&rep, &back, sizeof rep) != 0)
    abort ();
}

static void
check_app (const RtcpPacket * pkt)
{
  RtcpApp app;

  if (!rtcp_app_parse (pkt, &app))
    return;
  if (app.data < pkt->body || app.data + app.len > pkt->body + pkt->body_len)
    abort ();
}

static void
check_nack (const RtcpPacket * pkt)
{
  guint n_items = 0;
  guint16 seqs[17];

  if (!rtcp_nack_parse (pkt, NULL, NULL, &n_items))
    return;
  if (8 + 4 * (gsize) n_items > pkt->body_len)
    abort ();
  for (guint i = 0; i < n_items; i++) {
    RtcpNackItem item = rtcp_nack_item (pkt, i), packed[17];
    guint k = rtcp_nack_item_expand (item, seqs);
    /* the item's own sequence numbers pack back into that one item */
    if (rtcp_nack_items_from_seqs (seqs, k, packed, 17) != 1 ||
        packed[0].pid != item.pid || packed[0].blp != item.blp)
      abort ();
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtcpIter it;
  RtcpPacket pkt;
  gsize covered = 0;
  guint n = 0;

  rtcp_iter_init (&it, data, size);
  while (rtcp_iter_next (&it, &pkt)) {
    if (pkt.data != data + covered || pkt.len < RTCP_HEADER_SIZE ||
        pkt.len % 4 || pkt.body_len > pkt.len - RTCP_HEADER_SIZE)
      abort ();
    covered += pkt.len;
    n++;
    check_report (&pkt);
    check_app (&pkt);
    check_nack (&pkt);
    rtcp_pli_parse (pkt.data, pkt.len, NULL, NULL);
  }
  if (rtcp_walk_valid (data, size) != (!it.failed && size > 0) ||
      (!it.failed && covered != size))
    abort ();
  if (rtcp_compound_valid (data, size) && (n == 0 ||
          (data[1] != RTCP_PT_SR && data[1] != RTCP_PT_RR)))
    abort ();
  return 0;
}
