package io.jtrace.agent.threads;

import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.agent.tracks.PollingInstance;
import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The {@code jvm.threads} data source: a track for every live platform thread, whether it traces or
 * not, with its Java state and CPU time sampled every {@code sample_period_ms} (default 100 ms, at
 * least 10). See {@link ThreadSampler}. Virtual threads have no OS thread of their own: track_event
 * describes the ones that trace.
 */
public final class ThreadsDataSource implements DataSource {
    public static final String NAME = "jvm.threads";
    public static final int DEFAULT_PERIOD_MS = 100;
    public static final int MIN_PERIOD_MS = 10;

    private final ProcessTrack process;
    private final ScheduledExecutorService samplingThread;

    public ThreadsDataSource(ProcessTrack process, ScheduledExecutorService samplingThread) {
        this.process = process;
        this.samplingThread = samplingThread;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        int requested = config.getJvmThreadsConfig().getSamplePeriodMs();
        long period = requested == 0 ? DEFAULT_PERIOD_MS : Math.max(MIN_PERIOD_MS, requested);
        PolledSequence sequence = new PolledSequence(process, context);
        ThreadSampler sampler = new ThreadSampler(sequence, ManagementFactory.getThreadMXBean());
        return new PollingInstance(samplingThread, sequence, period) {
            @Override
            protected void first(long now) {
                sampler.start(now);
            }

            @Override
            protected void poll(long now) {
                sampler.sample(now);
            }

            @Override
            protected void last(long now) {
                sampler.stop(now);
            }
        };
    }
}
