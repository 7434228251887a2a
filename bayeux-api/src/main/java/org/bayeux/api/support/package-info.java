/**
 * Building blocks shared by the implementations of the API: the server's engine and the Java client both use them,
 * so the same bookkeeping is written once. Applications do not need these classes; they program against the
 * interfaces of {@code org.bayeux.api} and its sub-packages.
 *
 * <p>This package depends on nothing but the JDK and the API itself, as the rest of the API module does.</p>
 */
package org.bayeux.api.support;
