import { changeWatcherSuite } from "./change-watcher.suite";

changeWatcherSuite("postgresql");
