package io.jtrace.agent.memory;

import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.agent.tracks.PollingInstance;
import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The {@code jvm.memory} data source: heap, non-heap, memory pools, buffer pools and loaded classes as
 * counter tracks under the process, every {@code poll_period_ms} (default 1 s, at least 10 ms). See
 * {@link MemorySampler}.
 */
public final class MemoryDataSource implements DataSource {
    public static final String NAME = "jvm.memory";
    public static final int DEFAULT_PERIOD_MS = 1000;
    public static final int MIN_PERIOD_MS = 10;

    private final ProcessTrack process;
    private final ScheduledExecutorService samplingThread;

    public MemoryDataSource(ProcessTrack process, ScheduledExecutorService samplingThread) {
        this.process = process;
        this.samplingThread = samplingThread;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        int requested = config.getJvmMemoryConfig().getPollPeriodMs();
        long period = requested == 0 ? DEFAULT_PERIOD_MS : Math.max(MIN_PERIOD_MS, requested);
        PolledSequence sequence = new PolledSequence(process, context);
        MemorySampler sampler = new MemorySampler(new CounterSet(sequence), ManagementFactory.getMemoryMXBean(),
                ManagementFactory.getMemoryPoolMXBeans(), ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class),
                ManagementFactory.getClassLoadingMXBean());
        return new PollingInstance(samplingThread, sequence, period) {
            @Override
            protected void first(long now) {
                poll(now);
            }

            @Override
            protected void poll(long now) {
                sequence.beginSample();
                sampler.sample(now);
            }

            @Override
            protected void last(long now) {
                poll(now);
            }
        };
    }
}
