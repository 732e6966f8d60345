/* The monotonic clock in seconds that progress lines and elapsed-time figures use. */
#ifndef TBR_CLOCK_H
#define TBR_CLOCK_H

double tbr_monotonic_seconds(void);

#endif
