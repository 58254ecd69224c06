package io.jtrace.agent.apibind;

import java.io.IOException;
import java.io.InputStream;

/**
 * Defines {@link ForeignApiAdapter} for one copy of the API: {@code io.jtrace.api} classes come from
 * that copy's class loader, the adapter's own bytes from the agent's jar, everything else (the JDK,
 * {@link Twins}, {@link EventArgs}) from the agent's class loader.
 */
final class AdapterLoader extends ClassLoader {
    static final String ADAPTER = ForeignApiAdapter.class.getName();
    private static final String API_PACKAGE = "io.jtrace.api.";

    private final ClassLoader apiLoader;
    private final ClassLoader agentLoader;

    AdapterLoader(ClassLoader apiLoader, ClassLoader agentLoader) {
        super("jtrace-api-adapter", null);
        this.apiLoader = apiLoader;
        this.agentLoader = agentLoader;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                if (name.startsWith(API_PACKAGE)) {
                    c = Class.forName(name, false, apiLoader);
                } else if (name.equals(ADAPTER)) {
                    byte[] bytes = adapterBytes();
                    c = defineClass(name, bytes, 0, bytes.length, ForeignApiAdapter.class.getProtectionDomain());
                } else {
                    c = Class.forName(name, false, agentLoader);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    private byte[] adapterBytes() throws ClassNotFoundException {
        String resource = ADAPTER.replace('.', '/') + ".class";
        try (InputStream in = agentLoader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new ClassNotFoundException(ADAPTER + ": " + resource + " is not in the agent's jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(ADAPTER, e);
        }
    }
}
