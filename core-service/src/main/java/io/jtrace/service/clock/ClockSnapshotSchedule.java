package io.jtrace.service.clock;

import io.jtrace.protos.TraceConfig;
import java.util.concurrent.TimeUnit;

/**
 * When a session's read-out carries a clock snapshot. Trace processor needs one to put the trace's
 * clocks on one timeline and a new one now and then to follow their drift, not one per read: a session
 * that streams into a file under load is read every few milliseconds, and each snapshot costs a read of
 * {@code /proc/uptime}. As Perfetto's service does: at the start (the header's), then once every
 * {@code builtin_data_sources.snapshot_interval_ms} (10 s by default), and in the last read.
 * Service thread only.
 */
public final class ClockSnapshotSchedule {
    /** Perfetto's default for {@code snapshot_interval_ms}. */
    public static final long DEFAULT_INTERVAL_MILLIS = 10_000;

    private final long intervalNanos;
    private boolean taken;
    private long lastNanos;

    public ClockSnapshotSchedule(TraceConfig config) {
        // A uint32: 2^31 ms and more is a long interval, not a negative one; 0 is "not set".
        long millis = Integer.toUnsignedLong(config.getBuiltinDataSources().getSnapshotIntervalMs());
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(millis != 0 ? millis : DEFAULT_INTERVAL_MILLIS);
    }

    /** A snapshot taken at {@code nowNanos} ({@code System.nanoTime()}) went into the trace. */
    public void taken(long nowNanos) {
        taken = true;
        lastNanos = nowNanos;
    }

    /** Whether a read at {@code nowNanos} should carry a snapshot; {@code lastRead} for the session's final one. */
    public boolean due(long nowNanos, boolean lastRead) {
        return lastRead || !taken || nowNanos - lastNanos >= intervalNanos;
    }
}
