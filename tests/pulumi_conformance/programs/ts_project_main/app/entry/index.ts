console.log("running from app/entry");
