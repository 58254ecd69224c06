package io.jtrace.agent.tracks;

import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.DataSourceConfig;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A data source that samples every period into one sequence, on the agent's sampling thread
 * (jvm.threads, jvm.memory, jvm.jmx): each instance is a {@link PollingInstance} running the
 * {@link Sampler} the subclass makes for it.
 */
public abstract class PollingDataSource implements DataSource {
    private final String name;
    private final ProcessTrack process;
    private final ScheduledExecutorService samplingThread;

    protected PollingDataSource(String name, ProcessTrack process, ScheduledExecutorService samplingThread) {
        this.name = name;
        this.process = process;
        this.samplingThread = samplingThread;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        PolledSequence sequence = new PolledSequence(process, context);
        return new PollingInstance(samplingThread, sequence, periodMillis(config), sampler(sequence, config));
    }

    /** The sample period the config asks for (see {@link PollingInstance#period}). */
    protected abstract long periodMillis(DataSourceConfig config);

    protected abstract Sampler sampler(PolledSequence sequence, DataSourceConfig config);
}
