package io.jtrace.agent.tracks;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data source instance that samples on the producer thread every period into one
 * {@link PolledSequence}: a first sample at start, one per period, a last one at stop. A sample that
 * throws is logged once and skipped; the next period tries again (the host's MBeans are not ours to trust).
 */
public abstract class PollingInstance implements DataSourceInstance {
    private static final Logger LOG = LoggerFactory.getLogger(PollingInstance.class);

    private final DataSourceContext context;
    private final PolledSequence sequence;
    private final long periodMillis;
    private DataSourceContext.Cancellable timer;
    private boolean failureLogged;

    protected PollingInstance(DataSourceContext context, PolledSequence sequence, long periodMillis) {
        this.context = context;
        this.sequence = sequence;
        this.periodMillis = periodMillis;
    }

    protected abstract void first(long now);

    protected abstract void poll(long now);

    protected abstract void last(long now);

    @Override
    public final void start() {
        sequence.open();
        guarded(true, false);
        timer = context.every(periodMillis, () -> guarded(false, false));
    }

    @Override
    public final void flush() {
        sequence.flush();
    }

    @Override
    public final void stop() {
        if (timer != null) {
            timer.cancel();
        }
        guarded(false, true);
        sequence.close();
    }

    @Override
    public final void clearIncrementalState() {
        sequence.clearIncrementalState();
    }

    private void guarded(boolean isFirst, boolean isLast) {
        long now = System.nanoTime();
        try {
            if (isFirst) {
                first(now);
            } else if (isLast) {
                last(now);
            } else {
                poll(now);
            }
        } catch (RuntimeException e) {
            if (sequence.writer().inPacket()) {
                sequence.writer().abortPacket();
            }
            if (!failureLogged) {
                failureLogged = true;
                LOG.warn("jtrace: a sample of {} failed; later samples go on", getClass().getName(), e);
            }
        }
    }
}
