package io.jtrace.service;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;

/** Checks a trace config before anything is allocated for it; every refusal names the field. */
final class SessionConfigValidator {
    private SessionConfigValidator() {}

    /**
     * {@code smbPageSize}: a buffer must hold at least one page, the chunk a busy writer hands over (a
     * smaller one would discard every such chunk, counted, and keep almost nothing).
     */
    static void validate(TraceConfig c, int smbPageSize) {
        if (c.getBuffersCount() == 0) {
            throw new InvalidConfigException("the trace config has no buffers: add at least one `buffers { size_kb: N }`");
        }
        for (int i = 0; i < c.getBuffersCount(); i++) {
            long sizeKb = Integer.toUnsignedLong(c.getBuffers(i).getSizeKb());
            if (sizeKb == 0) {
                throw new InvalidConfigException("buffers[" + i + "].size_kb must be positive");
            }
            if (sizeKb * 1024 < smbPageSize) {
                throw new InvalidConfigException("buffers[" + i + "].size_kb is " + sizeKb + ": smaller than one "
                        + smbPageSize / 1024 + " KiB page of the shared memory buffer, the chunk a busy writer hands over");
            }
        }
        if (c.getDataSourcesCount() == 0) {
            throw new InvalidConfigException("the trace config has no data_sources");
        }
        for (int i = 0; i < c.getDataSourcesCount(); i++) {
            DataSourceConfig ds = c.getDataSources(i).getConfig();
            if (ds.getName().isEmpty()) {
                throw new InvalidConfigException("data_sources[" + i + "].config.name is empty");
            }
            if (ds.getTargetBuffer() >= c.getBuffersCount()) {
                throw new InvalidConfigException("data_sources[" + i + "] (" + ds.getName() + ") has target_buffer "
                        + ds.getTargetBuffer() + " but the config has only " + c.getBuffersCount() + " buffer(s)");
            }
        }
        if (c.getWriteIntoFile() && c.getOutputPath().isEmpty()) {
            throw new InvalidConfigException("write_into_file needs output_path: where the trace goes");
        }
        if (!c.getWriteIntoFile() && (c.getFileWritePeriodMs() != 0 || c.getMaxFileSizeBytes() != 0)) {
            throw new InvalidConfigException("file_write_period_ms and max_file_size_bytes need write_into_file: true");
        }
    }
}
