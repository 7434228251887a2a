/** Compiled examples of server set-ups that the documentation recommends, each run by a test beside it. */
package org.bayeux.server.example;
