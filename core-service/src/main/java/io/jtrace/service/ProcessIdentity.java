package io.jtrace.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The OS identity of this process: pid, and uid when the platform exposes it. */
public final class ProcessIdentity {
    private ProcessIdentity() {}

    public static int pid() {
        return (int) ProcessHandle.current().pid();
    }

    /** The uid owning /proc/self, or -1 where there is none. */
    public static int uid() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer ? (Integer) uid : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
