package io.jtrace.agent.tracks;

import io.jtrace.producer.DataSourceInstance;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data source instance that samples every period into one {@link PolledSequence}: a first sample as
 * soon as it starts, one per period, a last one at stop. The first and the periodic samples run on the
 * agent's sampler thread, not on the producer thread: a sample of thousands of threads takes
 * milliseconds (the first one of jvm.threads a thread dump), and the producer thread must stay free to
 * answer the service's flushes. The last one runs in {@code stop}, on the producer thread, which waits
 * for a sample in progress to end (the data must be in before the session ends). The sequence's writer is used under the instance's lock, by the
 * sampler thread and by the producer thread's flush and stop. A flush never waits for a sample (on a
 * machine busy with thousands of threads the sampler thread can be off the CPU for seconds while it
 * holds the lock): it flushes at once if the lock is free, else it leaves the flush to the sample in
 * progress, which flushes when it ends. A sample that throws is logged once and
 * skipped; the next period tries again (the host's MBeans are not ours to trust).
 */
public final class PollingInstance implements DataSourceInstance {
    private static final Logger LOG = LoggerFactory.getLogger(PollingInstance.class);

    private final ScheduledExecutorService samplingThread;
    private final PolledSequence sequence;
    private final long periodMillis;
    private final Sampler sampler;
    private ScheduledFuture<?> timer;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}: set at stop, after which no sample writes. */
    private boolean stopped;
    /** Guarded by {@link #lock}: the first sample was taken. */
    private boolean sampledOnce;
    /**
     * Set by a flush that found the lock held; read and cleared by the sample holding it, under the
     * lock. Volatile: the flush sets it without the lock.
     */
    private volatile boolean flushRequested;
    private boolean failureLogged;

    public PollingInstance(ScheduledExecutorService samplingThread, PolledSequence sequence, long periodMillis,
                           Sampler sampler) {
        this.samplingThread = samplingThread;
        this.sequence = sequence;
        this.periodMillis = periodMillis;
        this.sampler = sampler;
    }

    /** A configured period: {@code requestedMillis}, or {@code defaultMillis} when 0, never below {@code minMillis}. */
    public static long period(int requestedMillis, int defaultMillis, int minMillis) {
        return requestedMillis == 0 ? defaultMillis : Math.max(minMillis, requestedMillis);
    }

    @Override
    public final void start() {
        lock.lock();
        try {
            sequence.open();
        } finally {
            lock.unlock();
        }
        try {
            timer = samplingThread.scheduleWithFixedDelay(this::periodic, 0, periodMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("jtrace: the sampler thread is shut down; only the last sample is taken");
        }
    }

    private void periodic() {
        lock.lock();
        try {
            if (!stopped) {
                guarded(!sampledOnce, false);
                sampledOnce = true;
            }
            // Cleared before the flush; a request that comes after this read finds the lock still held,
            // sets the flag again and is served by the next sample, one period later.
            if (flushRequested) {
                flushRequested = false;
                sequence.flush();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final void flush() {
        if (lock.tryLock()) {
            try {
                sequence.flush();
            } finally {
                lock.unlock();
            }
        } else {
            flushRequested = true;
        }
    }

    @Override
    public final void stop() {
        if (timer != null) {
            timer.cancel(false);
        }
        lock.lock();
        try {
            stopped = true;
            if (!sampledOnce) {
                guarded(true, false); // stopped before the sampler thread got to it
            }
            guarded(false, true);
            sequence.close();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final void clearIncrementalState() {
        sequence.clearIncrementalState();
    }

    /** Called with the lock held. */
    private void guarded(boolean isFirst, boolean isLast) {
        long now = System.nanoTime();
        try {
            sequence.beginSample();
            if (isFirst) {
                sampler.first(now);
            } else if (isLast) {
                sampler.last(now);
            } else {
                sampler.sample(now);
            }
        } catch (Throwable e) {
            // Anything the host's MBeans or threads throw; uncaught here it would end the periodic task silently.
            if (sequence.writer().inPacket()) {
                sequence.writer().abortPacket();
            }
            if (!failureLogged) {
                failureLogged = true;
                LOG.warn("jtrace: a sample of {} failed; later samples go on", sampler.getClass().getName(), e);
            }
        }
    }
}
