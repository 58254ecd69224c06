package io.jtrace.agent.threads;

import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.agent.tracks.PollingDataSource;
import io.jtrace.agent.tracks.PollingInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The {@code jvm.threads} data source: a track for every live platform thread, whether it traces or
 * not, with its Java state and CPU time sampled every {@code sample_period_ms} (default 100 ms, at
 * least 10). See {@link ThreadSampler}. Virtual threads have no OS thread of their own: track_event
 * describes the ones that trace.
 */
public final class ThreadsDataSource extends PollingDataSource {
    public static final String NAME = "jvm.threads";
    /** Each thread's child tracks: its Java state slices and its CPU time counter. */
    public static final String STATE_TRACK = "Java state";
    public static final String CPU_TRACK = "CPU time";
    public static final int DEFAULT_PERIOD_MS = 100;
    public static final int MIN_PERIOD_MS = 10;

    public ThreadsDataSource(ProcessTrack process, ScheduledExecutorService samplingThread) {
        super(NAME, process, samplingThread);
    }

    @Override
    protected long periodMillis(DataSourceConfig config) {
        return PollingInstance.period(config.getJvmThreadsConfig().getSamplePeriodMs(), DEFAULT_PERIOD_MS, MIN_PERIOD_MS);
    }

    @Override
    protected Sampler sampler(PolledSequence sequence, DataSourceConfig config) {
        return new ThreadSampler(sequence, ManagementFactory.getThreadMXBean());
    }
}
