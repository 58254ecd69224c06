package io.jtrace.cli.record;

import io.jtrace.cli.trace.LossCounts;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The recording's live progress on stderr: on a terminal one line rewritten in place ({@code \r}) at
 * every update; otherwise (a log, a pipe) a line of its own at most every {@code quietMillis}, so a
 * long recording does not flood the log.
 */
final class ProgressLine {
    static final long DEFAULT_QUIET_MS = 10_000;

    private final PrintStream err;
    private final boolean terminal;
    private final long quietNanos;
    private long lastLineNanos;
    private int lastWidth;

    ProgressLine(PrintStream err, boolean terminal, long quietMillis) {
        this.err = err;
        this.terminal = terminal;
        this.quietNanos = quietMillis * 1_000_000L;
        this.lastLineNanos = System.nanoTime();
    }

    void update(long elapsedNanos, long bytes, long packets, LossCounts losses) {
        String line = text(elapsedNanos, bytes, packets, losses);
        if (terminal) {
            // Spaces over what a longer previous line left on screen.
            err.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
            err.flush();
            lastWidth = line.length();
            return;
        }
        long now = System.nanoTime();
        if (now - lastLineNanos >= quietNanos) {
            err.println(line);
            lastLineNanos = now;
        }
    }

    /** Ends the line being rewritten, so what follows starts on a line of its own. */
    void finish() {
        if (terminal && lastWidth > 0) {
            err.println();
            lastWidth = 0;
        }
    }

    /** {@code packets} < 0: not known while the session runs (the service writes the file). */
    static String text(long elapsedNanos, long bytes, long packets, LossCounts losses) {
        return String.format(Locale.ROOT, "recording %s  %s  %s%s", duration(elapsedNanos), size(bytes),
                packets < 0 ? "" : String.format(Locale.ROOT, "%,d packets  ", packets), losses);
    }

    /** 0:07, 12:30, 1:02:03. */
    static String duration(long nanos) {
        long s = nanos / 1_000_000_000L;
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    /** 512 B, 3.4 KB, 12.0 MB, 1.2 GB (powers of 1024, as the buffer sizes). */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
