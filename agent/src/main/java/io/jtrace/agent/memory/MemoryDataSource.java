package io.jtrace.agent.memory;

import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.agent.tracks.PollingDataSource;
import io.jtrace.agent.tracks.PollingInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The {@code jvm.memory} data source: heap, non-heap, memory pools, buffer pools and loaded classes as
 * counter tracks under the process, every {@code poll_period_ms} (default 1 s, at least 10 ms). See
 * {@link MemorySampler}.
 */
public final class MemoryDataSource extends PollingDataSource {
    public static final String NAME = "jvm.memory";
    public static final int DEFAULT_PERIOD_MS = 1000;
    public static final int MIN_PERIOD_MS = 10;

    public MemoryDataSource(ProcessTrack process, ScheduledExecutorService samplingThread) {
        super(NAME, process, samplingThread);
    }

    @Override
    protected long periodMillis(DataSourceConfig config) {
        return PollingInstance.period(config.getJvmMemoryConfig().getPollPeriodMs(), DEFAULT_PERIOD_MS, MIN_PERIOD_MS);
    }

    @Override
    protected Sampler sampler(PolledSequence sequence, DataSourceConfig config) {
        return new MemorySampler(new CounterSet(sequence), ManagementFactory.getMemoryMXBean(),
                ManagementFactory.getMemoryPoolMXBeans(), ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class),
                ManagementFactory.getClassLoadingMXBean());
    }
}
