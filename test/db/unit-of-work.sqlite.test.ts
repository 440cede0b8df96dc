import { unitOfWorkSuite } from "./unit-of-work.suite";

unitOfWorkSuite("sqlite");
