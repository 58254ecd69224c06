package io.jtrace.service;

import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** The service's record of one connected producer. Service thread only. */
final class ProducerState {
    final int id;
    final String name;
    final int uid;
    final int pid;
    final Producer callbacks;
    final Map<String, DataSourceDescriptor> dataSources = new LinkedHashMap<>();
    /** Writer id → global target buffer id, from registerTraceWriter. */
    final Map<Integer, Integer> writerTargets = new HashMap<>();
    SharedMemoryBuffer smb;
    SharedMemoryAbi abi;
    boolean connected = true;

    ProducerState(int id, String name, int uid, int pid, Producer callbacks) {
        this.id = id;
        this.name = name;
        this.uid = uid;
        this.pid = pid;
        this.callbacks = callbacks;
    }
}
