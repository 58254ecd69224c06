package io.jtrace.service.buffer;

import io.jtrace.shm.abi.SharedMemoryAbi;

/**
 * What a trusted writer needs to append its own chunks to a buffer's file ({@link Promotion}): the
 * SMB it writes into (the service's mapping of it), the file, the producer's trusted identity and the
 * file's size limit (max_file_size_bytes, or Long.MAX_VALUE). Offered by the service for each buffer of
 * a session that streams into a file, while the session runs.
 */
public record PromotionTarget(int bufferId, SharedMemoryAbi abi, FileAppender file, int pid, int uid, long fileLimit) {}
