package io.jtrace.service;

import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.nio.file.Path;

/**
 * Limits and defaults of a {@link TracingService}.
 *
 * @param smbSize bytes of each producer's shared memory buffer
 * @param smbPageSize page size of those buffers
 * @param smbDirectory where SMB files are created; null for /dev/shm or the temp dir
 * @param maxSessions concurrent sessions allowed
 * @param maxTotalBufferBytes sum of all sessions' trace buffer sizes allowed
 * @param defaultFlushTimeoutMillis flush timeout when the config does not set one
 * @param maxSessionsPerUid concurrent sessions one consumer uid may have (Perfetto's default: 5)
 */
public record ServiceConfig(int smbSize, int smbPageSize, Path smbDirectory, int maxSessions,
                            long maxTotalBufferBytes, long defaultFlushTimeoutMillis, int maxSessionsPerUid) {
    public static final int DEFAULT_MAX_SESSIONS_PER_UID = 5;

    public ServiceConfig(int smbSize, int smbPageSize, Path smbDirectory, int maxSessions, long maxTotalBufferBytes,
                         long defaultFlushTimeoutMillis) {
        this(smbSize, smbPageSize, smbDirectory, maxSessions, maxTotalBufferBytes, defaultFlushTimeoutMillis,
                DEFAULT_MAX_SESSIONS_PER_UID);
    }

    public static ServiceConfig defaults() {
        return new ServiceConfig(SharedMemoryBuffer.DEFAULT_SIZE, SharedMemoryBuffer.DEFAULT_PAGE_SIZE, null, 16,
                1024L * 1024 * 1024, 5000);
    }
}
