package io.jtrace.jfr.live;

import io.jtrace.jfr.format.TrackUuids;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;

/**
 * The {@code jvm.jfr} data source: JFR events of this JVM, live, mapped like {@code jtrace convert}
 * maps a file (see {@link io.jtrace.jfr.format.JfrEventMapper}), on the tracks {@code uuids} gives (the
 * agent's, so JFR events share the application's thread tracks). The config's {@code legacy_config}
 * holds the {@link JfrSettings} text; empty means JFR's {@code default} configuration.
 */
public final class JfrDataSource implements DataSource {
    public static final String NAME = "jvm.jfr";

    private final int pid;
    private final String processName;
    private final TrackUuids uuids;

    public JfrDataSource(int pid, String processName, TrackUuids uuids) {
        this.pid = pid;
        this.processName = processName;
        this.uuids = uuids;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        return new JfrRecorder(context, JfrSettings.parse(config.getLegacyConfig()), pid, processName, uuids);
    }
}
