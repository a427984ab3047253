/* Kept for the element code that includes it: PLI and the key-unit
 * hold-off now live in core/rtcp.h (gst/common/core). */
#ifndef __RTCP_FB_H__
#define __RTCP_FB_H__

#include "core/rtcp.h"

#endif /* __RTCP_FB_H__ */
