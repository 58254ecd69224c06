package io.jtrace.producer;

import io.jtrace.protos.DataSourceConfig;

/** A kind of data a producer can trace, advertised to the service under {@link #name()}. */
public interface DataSource {
    /** The name configs refer to in {@code data_sources.config.name}. */
    String name();

    /** Creates an instance for one session. Called on the producer thread; {@code config.target_buffer} is the service's buffer id. */
    DataSourceInstance create(DataSourceContext context, DataSourceConfig config);
}
