package io.jtrace.service;

import io.jtrace.protos.DataSourceConfig;
import java.nio.file.Path;

/**
 * The producer side of the protocol, as the service sees it (DESIGN §4). The service calls these in
 * order from its task thread: {@code onConnect}, {@code onTracingSetup}, then per data source instance
 * {@code setupDataSource} → {@code startDataSource} → {@code stopDataSource}, plus {@code flush} and
 * {@code onDisconnect}. Implementations must not block: hand work to their own thread.
 */
public interface Producer {
    void onConnect();

    /**
     * The producer's SMB is ready at {@code smbPath}: map it, then call {@link ProducerEndpoint#smbMapped()},
     * after which the service unlinks the name.
     */
    void onTracingSetup(Path smbPath, int pageSize);

    void setupDataSource(long instanceId, DataSourceConfig config);

    void startDataSource(long instanceId, DataSourceConfig config);

    void stopDataSource(long instanceId);

    /**
     * Commit everything the given instances wrote, then answer with
     * {@link ProducerEndpoint#flushComplete(long)} carrying {@code requestId}.
     */
    void flush(long requestId, long[] instanceIds);

    /**
     * The given instances should start their incremental state (interned data, descriptors) over, so
     * the trace stays decodable after older data was overwritten. Periodic, from the config's
     * {@code incremental_state_config.clear_period_ms}.
     */
    default void clearIncrementalState(long[] instanceIds) {}

    void onDisconnect();
}
