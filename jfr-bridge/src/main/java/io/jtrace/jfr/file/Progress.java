package io.jtrace.jfr.file;

import java.io.PrintStream;

/**
 * A progress line on stderr for big files, redrawn at most once a second. JFR's parser does not say
 * where in the file it is, so progress is the share of the recording's time span the events have
 * reached (chunk headers give the span), never going back; events inside a chunk are roughly, not
 * strictly, in time order, and the event count is shown beside it.
 */
final class Progress {
    private static final long REDRAW_NANOS = 1_000_000_000L;

    private final PrintStream out;
    private final String label;
    private final long startNanos;
    private final long spanNanos;
    private long nextDraw;
    private long percentShown;
    private boolean drawn;

    /** {@code out} null: silent. */
    Progress(PrintStream out, String label, long startNanos, long endNanos) {
        this.out = out;
        this.label = label;
        this.startNanos = startNanos;
        this.spanNanos = Math.max(1, endNanos - startNanos);
        this.nextDraw = System.nanoTime() + REDRAW_NANOS;
    }

    void event(long eventEpochNanos, long events) {
        if (out == null || (events & 1023) != 0) {
            return;
        }
        long now = System.nanoTime();
        if (now < nextDraw) {
            return;
        }
        nextDraw = now + REDRAW_NANOS;
        // Never backwards: chunks of concatenated recordings can cover the same time again.
        long percent = Math.max(percentShown, Math.min(99, (eventEpochNanos - startNanos) * 100 / spanNanos));
        percentShown = percent;
        out.print("\r" + label + ": " + percent + "% (" + String.format("%,d", events) + " events)");
        out.flush();
        drawn = true;
    }

    void done(long events) {
        if (out != null && drawn) {
            out.println("\r" + label + ": 100% (" + String.format("%,d", events) + " events)");
        }
    }
}
