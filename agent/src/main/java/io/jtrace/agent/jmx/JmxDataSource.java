package io.jtrace.agent.jmx;

import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.agent.tracks.PlatformMBeans;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.agent.tracks.PollingDataSource;
import io.jtrace.agent.tracks.PollingInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.JvmJmxConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code jvm.jmx} data source: the MBean attributes its config names polled into counter tracks
 * every {@code poll_period_ms} (default 1 s, at least 10 ms). With no attributes configured it polls
 * {@link MBeanAttributeSpec#DEFAULT_ATTRIBUTES}: the process's and the machine's CPU load and the open
 * file descriptors.
 */
public final class JmxDataSource extends PollingDataSource {
    public static final String NAME = "jvm.jmx";
    public static final int DEFAULT_PERIOD_MS = 1000;
    public static final int MIN_PERIOD_MS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(JmxDataSource.class);

    public JmxDataSource(ProcessTrack process, ScheduledExecutorService samplingThread) {
        super(NAME, process, samplingThread);
    }

    @Override
    protected long periodMillis(DataSourceConfig config) {
        return PollingInstance.period(config.getJvmJmxConfig().getPollPeriodMs(), DEFAULT_PERIOD_MS, MIN_PERIOD_MS);
    }

    @Override
    protected Sampler sampler(PolledSequence sequence, DataSourceConfig config) {
        JvmJmxConfig jmx = config.getJvmJmxConfig();
        List<MBeanAttributeSpec> specs = new ArrayList<>();
        for (String text : jmx.getAttributesCount() == 0 ? MBeanAttributeSpec.DEFAULT_ATTRIBUTES : jmx.getAttributesList()) {
            try {
                specs.add(MBeanAttributeSpec.parse(text));
            } catch (IllegalArgumentException e) {
                // A config from a file or JMX reaches here unchecked: one bad entry must not cost the others.
                LOG.error("jtrace: {}; it is skipped", e.getMessage());
            }
        }
        return new MBeanAttributeSampler(PlatformMBeans::ifReady, specs, new CounterSet(sequence));
    }
}
