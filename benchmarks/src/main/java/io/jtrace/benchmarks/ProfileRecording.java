package io.jtrace.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/** The recording the JFR benchmarks work on: JFR's {@code profile} settings while worker threads run. */
final class ProfileRecording {
    private ProfileRecording() {}

    /** Records {@code threads} threads named {@code bench-worker-<i>} running {@code work} to its end, into {@code file}. */
    static void record(Path file, int threads, Runnable work) throws Exception {
        try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
            r.start();
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(work, "bench-worker-" + t);
                all.add(w);
                w.start();
            }
            for (Thread w : all) {
                w.join();
            }
            r.stop();
            r.dump(file);
        }
    }
}
