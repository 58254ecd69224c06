package io.jtrace.service;

import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The service's record of one connected producer. Service thread only. */
final class ProducerState {
    // Logs as TracingService: the agent prints the short logger name, and that is the name users know.
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);

    final int id;
    final String name;
    final int uid;
    final int pid;
    final Producer callbacks;
    /** Connected in this JVM, not over IPC: see {@link io.jtrace.service.buffer.SequenceIdentity#trusted}. */
    final boolean inProcess;
    /** Its writers' leave to append their chunks to files themselves: in-process producers only, else null. */
    final Promotions promotions;
    final Map<String, DataSourceDescriptor> dataSources = new LinkedHashMap<>();
    /** Writer id → global target buffer id, from registerTraceWriter. */
    final Map<Integer, Integer> writerTargets = new HashMap<>();
    SharedMemoryBuffer smb;
    SharedMemoryAbi abi;
    /** The SMB's file name is gone (the producer mapped it, went away, or did not answer in time). */
    private boolean smbUnlinked;
    boolean connected = true;

    ProducerState(int id, String name, int uid, int pid, Producer callbacks, boolean inProcess,
                  IntPredicate claimSlotId) {
        this.id = id;
        this.name = name;
        this.uid = uid;
        this.pid = pid;
        this.callbacks = callbacks;
        this.inProcess = inProcess;
        this.promotions = inProcess ? new Promotions(claimSlotId) : null;
    }

    /** Removes the SMB's file name, so no other process can open it; once, whoever asks first. */
    void unlinkSmb() {
        if (smb == null || smbUnlinked) {
            return;
        }
        smbUnlinked = true;
        try {
            smb.unlink();
        } catch (IOException e) {
            LOG.warn("jtrace: cannot remove the shared memory file {} of producer {}: {}", smb.path(), name, e.toString());
        }
    }
}
