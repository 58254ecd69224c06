package io.jtrace.service.output;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** How a {@link FileLog} consumer waits for an appender to finish copying into its range. */
final class CopyWait {
    private CopyWait() {}

    /** Spin, then yield, then park in short steps: a copy takes microseconds unless its thread lost its CPU. */
    static void pause(int attempt) {
        if (attempt < 32) {
            Thread.onSpinWait();
        } else if (attempt < 64) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
        }
    }
}
