package io.jtrace.jfr.live;

import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.DataSourceConfig;

/**
 * The {@code jvm.jfr} data source: JFR events of this JVM, live, mapped like {@code jtrace convert}
 * maps a file (see {@link io.jtrace.jfr.format.JfrEventMapper}), on the tracks of {@code process} (the
 * agent's, so JFR events share the application's thread tracks). The config's {@code legacy_config}
 * holds the {@link JfrSettings} text; empty means JFR's {@code default} configuration.
 */
public final class JfrDataSource implements DataSource {
    public static final String NAME = "jvm.jfr";

    private final ProcessTrack process;

    public JfrDataSource(ProcessTrack process) {
        this.process = process;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        return new JfrRecorder(context, JfrSettings.parse(config.getLegacyConfig()), process);
    }
}
