import { visibilitySuite } from "./visibility.suite";

visibilitySuite("postgresql");
