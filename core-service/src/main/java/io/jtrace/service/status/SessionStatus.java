package io.jtrace.service.status;

import io.jtrace.protos.TraceConfig;
import java.util.List;

/**
 * One tracing session as the service sees it.
 *
 * @param state {@code STARTED}, {@code DISABLING} (stopping) or {@code DISABLED} (stopped, not yet freed)
 * @param dataSources the data source instances started for it, as {@code name@producer}
 * @param consumerUid the uid of the consumer that started it
 * @param dataSourcesStarted every data source instance has reported started (or its start timed out):
 *     what is emitted from now on is traced
 * @param fileBytes bytes written into its file so far (write_into_file sessions; 0 otherwise)
 */
public record SessionStatus(long id, String uniqueName, String state, int consumerUid, boolean dataSourcesStarted,
                            TraceConfig config, List<BufferStatus> buffers,
                            List<String> dataSources, long fileBytes, long flushesRequested, long flushesSucceeded,
                            long flushesFailed) {
    public SessionStatus {
        buffers = List.copyOf(buffers);
        dataSources = List.copyOf(dataSources);
    }
}
