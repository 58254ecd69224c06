package io.jtrace.agent.gc;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The {@code jvm.gc} data source: every garbage collection as a slice on a track per collector, from
 * the JVM's GC notifications (no polling). See {@link GcRecorder} for what each slice carries.
 */
public final class GcDataSource implements DataSource {
    public static final String NAME = "jvm.gc";
    /** A collector's slice track is named this plus the collector's name: "GC: G1 Young Generation". */
    public static final String COLLECTOR_TRACK_PREFIX = "GC: ";
    /** The counter track of the heap used at each collection's start and end. */
    public static final String HEAP_COUNTER = "heap used at GC";
    /** The category of every collection's slice. */
    public static final String CATEGORY = "gc";

    private final ProcessTrack process;

    public GcDataSource(ProcessTrack process) {
        this.process = process;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        GcRecorder recorder = new GcRecorder(process, context, collectors);
        return new DataSourceInstance() {
            @Override
            public void start() {
                recorder.start();
            }

            @Override
            public void flush() {
                recorder.flush();
            }

            @Override
            public void stop() {
                recorder.stop();
            }

            @Override
            public void clearIncrementalState() {
                recorder.clearIncrementalState();
            }
        };
    }
}
