package io.jtrace.agent;

import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.jfr.live.JfrDataSource;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.JvmJmxConfig;
import io.jtrace.protos.JvmMemoryConfig;
import io.jtrace.protos.JvmThreadsConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TrackEventConfig;

/**
 * The TraceConfig that agent options describe, shared by the agent (its sessions) and {@code jtrace
 * record} (which sends it to a service over the consumer port), so both trace the same for the same
 * options.
 */
public final class OptionsTraceConfig {
    private static final int INCREMENTAL_STATE_CLEAR_PERIOD_MS = 5000;

    private OptionsTraceConfig() {}

    /**
     * {@code options} as a TraceConfig with one ring buffer of {@code bufferBytes} (the caller decides
     * the size: the agent caps it to its host's heap, a remote consumer leaves that to the service).
     */
    public static TraceConfig of(AgentOptions options, long bufferBytes) {
        TraceConfig.Builder config = TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder()
                        .setSizeKb((int) (bufferBytes / 1024)) // a uint32, at most AgentOptions.MAX_BUFFER_BYTES / 1024
                        .setFillPolicy(TraceConfig.BufferConfig.FillPolicy.RING_BUFFER));
        // Ring buffers overwrite the oldest data, including each thread's interned names: have every
        // sequence write them again every few seconds so an overwritten trace still decodes.
        config.setIncrementalStateConfig(TraceConfig.IncrementalStateConfig.newBuilder()
                .setClearPeriodMs(INCREMENTAL_STATE_CLEAR_PERIOD_MS));
        if (options.durationMillis() > 0) {
            // duration_ms is a uint32: at most AgentOptions.MAX_DURATION_MS, stored in an int's 32 bits.
            config.setDurationMs((int) options.durationMillis());
        }
        for (String source : options.sources()) {
            DataSourceConfig.Builder ds = DataSourceConfig.newBuilder().setName(source);
            if (source.equals(TrackEventDataSource.NAME) && !options.categories().isEmpty()) {
                ds.setTrackEventConfig(TrackEventConfig.newBuilder().addAllEnabledCategories(options.categories()));
            }
            if (source.equals(ThreadsDataSource.NAME)) {
                ds.setJvmThreadsConfig(JvmThreadsConfig.newBuilder().setSamplePeriodMs((int) options.threadsPeriodMillis()));
            }
            if (source.equals(MemoryDataSource.NAME)) {
                ds.setJvmMemoryConfig(JvmMemoryConfig.newBuilder().setPollPeriodMs((int) options.memoryPeriodMillis()));
            }
            if (source.equals(JmxDataSource.NAME)) {
                ds.setJvmJmxConfig(JvmJmxConfig.newBuilder().addAllAttributes(options.jmxAttributes())
                        .setPollPeriodMs((int) options.jmxPeriodMillis()));
            }
            if (source.equals(JfrDataSource.NAME)) {
                ds.setLegacyConfig(options.jfr());
            }
            config.addDataSources(TraceConfig.DataSource.newBuilder().setConfig(ds));
        }
        return config.build();
    }
}
